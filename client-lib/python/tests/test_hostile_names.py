"""Names a program chooses are not trusted: a scope or metric name with control characters or a
megabyte of text is stored as far as it goes, and every view of it stays one line per frame with
the control characters shown, not obeyed by the terminal."""
import csv
import os
import subprocess
import xml.dom.minidom

from conftest import BIN_DIR

ESCAPE = "\x1b]0;owned\x07\x1b[2J"  # retitle the terminal, clear the screen
PROGRAM = """
    import protond.profiler as proton
    proton.start("names")
    with proton.scope("a\\x1b]0;owned\\x07\\x1b[2J\\nb;c", metrics={"flops": 1}):
        pass
    with proton.scope("x" * (1 << 20), metrics={"flops": 2}):
        pass
    proton.finalize()
"""


def protonctl(daemon, *arguments):
    return subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket] +
                          list(arguments), capture_output=True, text=True, cwd=daemon.directory)


def test_a_hostile_scope_name_is_one_escaped_line_in_every_view(daemon):
    run = daemon.run(PROGRAM)
    assert run.returncode == 0, run.stderr
    tree = protonctl(daemon, "tree", "1", "-m", "flops")
    assert tree.returncode == 0, tree.stderr
    lines = tree.stdout.splitlines()
    assert "\x1b" not in tree.stdout and "\x07" not in tree.stdout
    hostile = [line for line in lines if "owned" in line]
    assert len(hostile) == 1
    assert hostile[0].endswith("a\\x1b]0;owned\\x07\\x1b[2J\\x0ab;c")
    assert hostile[0].lstrip().startswith("1")  # its flops, on its own line

    sorted_view = protonctl(daemon, "tree", "1", "-m", "flops", "--print-sorted").stdout
    assert "\x1b" not in sorted_view

    folded = os.path.join(daemon.directory, "names.folded")
    assert protonctl(daemon, "export", "1", "--format", "folded", "-o", folded).returncode == 0
    with open(folded) as f:
        stacks = f.read().splitlines()
    assert all(line.count(" ") >= 1 and "\x1b" not in line for line in stacks)
    assert any(line.startswith("ROOT;a ]0:owned  [2J b:c ") for line in stacks)

    svg = os.path.join(daemon.directory, "names.svg")
    assert protonctl(daemon, "export", "1", "--format", "svg", "-o", svg).returncode == 0
    xml.dom.minidom.parse(svg)  # well-formed: no control character made it into the XML


def test_a_megabyte_name_is_cut_to_the_record_limit(daemon):
    assert daemon.run(PROGRAM).returncode == 0
    tree = protonctl(daemon, "tree", "1", "-m", "flops").stdout
    long_lines = [line for line in tree.splitlines() if "xxxx" in line]
    assert len(long_lines) == 1
    assert long_lines[0].count("x") == 4096


def test_a_session_name_with_control_characters_is_refused(daemon):
    start = protonctl(daemon, "start", "--pid", str(os.getpid()), "--name", "bad" + ESCAPE)
    assert start.returncode != 0
    assert start.stderr == ("protonctl: session name 'bad\\x1b]0;owned\\x07\\x1b[2J' has a "
                            "control character at byte 3; use printable text\n")
    assert protonctl(daemon, "sessions").stdout.count("\n") <= 1  # nothing was started
