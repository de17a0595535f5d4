"""Names a program chooses are not trusted: a scope or metric name with control characters or a
megabyte of text is stored as far as it goes, and every view of it stays one line per frame with
the control characters shown, not obeyed by the terminal."""
import csv
import gzip
import json
import os
import subprocess
import sys
import textwrap
import xml.dom.minidom

from conftest import BIN_DIR

ESCAPE = "\x1b]0;owned\x07\x1b[2J"  # retitle the terminal, clear the screen
HOSTILE = "a" + ESCAPE + "\nb;c"
# Its scopes: a name with controls, a megabyte of name, and a name over the record limit that
# starts with a control character (the session's problem saying it was cut quotes its start).
PROGRAM = """
    import protond.profiler as proton
    proton.start("names")
    with proton.scope("a\\x1b]0;owned\\x07\\x1b[2J\\nb;c", metrics={"flops": 1}):
        pass
    with proton.scope("x" * (1 << 20), metrics={"flops": 2}):
        pass
    with proton.scope("\\x1b[2J" + "y" * 5000, metrics={"flops": 3}):
        pass
    proton.finalize()
"""
# A kernel name (in a Hatchet file: a CPU-only test has no kernels of its own) with the same
# controls, a line break, a comma and a quote.
KERNEL = "k" + ESCAPE + "\nx,\"y"


def protonctl(daemon, *arguments):
    return subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket] +
                          list(arguments), capture_output=True, text=True, cwd=daemon.directory)


def frame_names(node):
    yield node["frame"]["name"]
    for child in node["children"]:
        yield from frame_names(child)


def test_a_hostile_scope_name_is_one_escaped_line_in_every_view(daemon):
    # Under protonctl run, whose summary ends with the session's problems.
    run = daemon.launch([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket, "run",
                         "--name", "names", "--", sys.executable, "-c", textwrap.dedent(PROGRAM)])
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stderr and "\x07" not in run.stderr
    problems = [line for line in run.stderr.splitlines() if line.startswith("protonctl: problem: ")]
    assert len(problems) == 2, run.stderr  # the two cut names, each on one line
    assert any("cut to its first 4096 bytes: '\\x1b[2Jyyy" in line for line in problems)
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

    # pprof keeps names exactly, as strings of its string table (the gzipped protobuf). Without
    # Python's protobuf here, the check is that the name's bytes are there as one string:
    # after the tag of string_table (field 6, length-delimited: 0x32) and their length.
    pprof = os.path.join(daemon.directory, "names.pb.gz")
    assert protonctl(daemon, "export", "1", "--format", "pprof", "-o", pprof).returncode == 0
    with gzip.open(pprof, "rb") as f:
        encoded = f.read()
    assert b"\x32" + bytes([len(HOSTILE)]) + HOSTILE.encode() in encoded
    assert b"protond: session 1 (names)" in encoded  # a comment, from the session's name

    svg = os.path.join(daemon.directory, "names.svg")
    assert protonctl(daemon, "export", "1", "--format", "svg", "-o", svg).returncode == 0
    xml.dom.minidom.parse(svg)  # well-formed: no control character made it into the XML

    # Hatchet JSON writes them as \\u001b and the like: the name reads back exactly.
    hatchet = os.path.join(daemon.directory, "exported.hatchet")
    assert protonctl(daemon, "export", "1", "--format", "hatchet", "-o", hatchet).returncode == 0
    with open(hatchet, "rb") as f:
        raw = f.read()
    assert b"\x1b" not in raw and b"\x07" not in raw and b"\n" + b"b;c" not in raw
    profile = json.loads(raw)
    assert HOSTILE in set(frame_names(profile[0]))

    # The kernel views, on a Hatchet file with a kernel of such a name.
    profile[0]["children"].append({
        "frame": {"name": KERNEL, "type": "function"}, "children": [],
        "metrics": {"count": 3, "time (ns)": 300, "device_id": "0", "device_type": "CUDA"}})
    kernels = os.path.join(daemon.directory, "kernels.hatchet")
    with open(kernels, "w") as f:
        json.dump(profile, f)
    top = protonctl(daemon, "top", kernels)
    assert top.returncode == 0, top.stderr
    assert "\x1b" not in top.stdout and "\x07" not in top.stdout
    kernel_lines = [line for line in top.stdout.splitlines() if "owned" in line]
    assert len(kernel_lines) == 1, top.stdout
    assert kernel_lines[0].endswith("k\\x1b]0;owned\\x07\\x1b[2J\\x0ax,\"y")

    # CSV quotes the name (RFC 4180) and keeps it exactly, for a CSV reader to read back.
    table = os.path.join(daemon.directory, "kernels.csv")
    exported = protonctl(daemon, "export", kernels, "--format", "csv", "-o", table)
    assert exported.returncode == 0, exported.stderr
    with open(table, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][-1] == "Name"
    assert [row[-1] for row in rows[1:]] == [KERNEL]


def test_a_megabyte_name_is_cut_to_the_record_limit(daemon):
    assert daemon.run(PROGRAM).returncode == 0
    tree = protonctl(daemon, "tree", "1", "-m", "flops").stdout
    long_lines = [line for line in tree.splitlines() if "xxxx" in line]
    assert len(long_lines) == 1
    assert long_lines[0].count("x") == 4096


def test_a_session_name_with_control_characters_is_refused(daemon):
    start = protonctl(daemon, "start", "--pid", str(os.getpid()), "--name", "bad" + ESCAPE)
    assert start.returncode == 2
    assert start.stderr.startswith("protonctl: start: --name: session name 'bad\\x1b]0;owned"
                                   "\\x07\\x1b[2J' has a control character at byte 3; use "
                                   "printable text\nusage: protonctl [GLOBAL OPTIONS] COMMAND ...\n  start ")
    assert protonctl(daemon, "sessions").stdout.count("\n") <= 1  # nothing was started


def protonctl_bytes(daemon, *arguments):
    """protonctl with arguments that need not be UTF-8 (bytes), its output as bytes."""
    return subprocess.run([os.path.join(BIN_DIR, "protonctl").encode(), b"--socket",
                           daemon.socket.encode()] + list(arguments), capture_output=True,
                          cwd=daemon.directory)


# A name that is not UTF-8 gave a protobuf log line and "protonctl: " with nothing after it; one
# with a control character was refused by protond, after which `run` ran the program unprofiled.
def test_a_bad_session_name_stops_run_and_start_before_anything_runs(daemon):
    marker = os.path.join(daemon.directory, "the-program-ran")
    not_utf8 = (b"protonctl: run: --name: session name has invalid UTF-8 at byte 3 (0xff); use "
                b"UTF-8 text\nusage: protonctl [GLOBAL OPTIONS] COMMAND ...\n  run ")
    for name, message in ((b"bad\xff", not_utf8),
                          (b"bad\x1b[2J", b"protonctl: run: --name: session name 'bad\\x1b[2J' "
                                           b"has a control character at byte 3")):
        run = protonctl_bytes(daemon, b"run", b"--name", name, b"--", b"touch", marker.encode())
        assert run.returncode == 2
        assert run.stderr.startswith(message), run.stderr
        assert not os.path.exists(marker)
    start = protonctl_bytes(daemon, b"start", b"--pid", str(os.getpid()).encode(), b"--name",
                            b"\xc3(")
    assert start.returncode == 2
    assert start.stderr.startswith(b"protonctl: start: --name: session name has invalid UTF-8 "
                                   b"at byte 0 (0xc3); use UTF-8 text\n"), start.stderr
    assert protonctl(daemon, "sessions").stdout.count("\n") <= 1  # nothing was started


def test_a_session_name_that_is_not_utf8_leaves_the_program_running_unprofiled(daemon):
    """A str that holds a byte of a file name that was not UTF-8 (os.fsdecode gives U+DCFF for
    0xff): start() raised UnicodeEncodeError, ending the program."""
    run = daemon.run("""
        import protond.profiler as proton
        print("id", proton.start("bad\\udcff"))
        with proton.scope("work"):
            pass
        proton.finalize()
        print("done")
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["id None", "done"]
    assert run.stderr == ("protond.profiler: profiling is off: session name has invalid UTF-8 at "
                          "byte 3 (0xff); use UTF-8 text\n")
