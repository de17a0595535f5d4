"""Issue 27: a program that nests scopes deeper than protond's trees go (4096 levels, one limit
for every tree) keeps running, its session keeps the first 4096 levels and says what it left
out, and protond answers other clients all the while."""
import json
import os
import subprocess
import sys
import time

from conftest import BIN_DIR, program_environment

DEEP_PROGRAM = """
import protond.profiler as proton
proton.start("deep")
for i in range(100000):
    proton.enter_scope("s")
for i in range(100000):
    proton.exit_scope("s")
with proton.scope("after"):
    pass
proton.finalize()
"""


def protonctl(daemon, *arguments):
    return subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket] +
                          list(arguments), capture_output=True, text=True, cwd=daemon.directory,
                          timeout=60)


def depth_of_s_chain(root):
    """How many "s" scopes are nested under ROOT, each the only "s" inside the one before."""
    depth, node = 0, root
    while True:
        inner = [child for child in node["children"] if child["frame"]["name"] == "s"]
        if not inner:
            return depth
        depth, node = depth + 1, inner[0]


def test_scopes_nested_past_the_limit_are_left_out_said_and_stall_nobody(daemon):
    # Before: the program crashed (SIGSEGV) when its lane caught up on definitions, a level of
    # recursion and a 4 KiB buffer each; at smaller depths protond dropped the levels past 4096
    # as "naming an undefined id", after a walk of 4096 contexts each that held every client.
    program = subprocess.Popen(
        [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket, "run", "--",
         sys.executable, "-c", DEEP_PROGRAM], cwd=daemon.directory,
        env=program_environment({"PROTOND_SOCKET": daemon.socket, "PROTOND_AUTOSTART": "0"}),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    slowest = 0.0
    while program.poll() is None:
        asked = time.monotonic()
        assert protonctl(daemon, "sessions").returncode == 0
        slowest = max(slowest, time.monotonic() - asked)
        time.sleep(0.02)
    _, err = program.communicate()
    assert program.returncode == 0, err
    assert slowest < 5, slowest  # generous for a loaded machine: answers take milliseconds
    assert ("protonctl: problem: scopes nested deeper than 4096 levels are left out; their "
            "records count as dropped") in err
    assert ", 191808 dropped" in err, err  # each left-out scope's enter and exit
    with open(os.path.join(daemon.directory, "deep.hatchet")) as f:
        sys.setrecursionlimit(20000)  # json's decoder takes a level of recursion per level
        root, _ = json.load(f)
    assert depth_of_s_chain(root) == 4096
    assert [child["frame"]["name"] for child in root["children"]] == ["s", "after"]
