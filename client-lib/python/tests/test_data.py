"""Newer Proton's API (after Triton 3.6): proton.data.get / get_msgpack while a session runs,
finalize(output_format="hatchet_msgpack"), and what is not supported yet (phases) saying so."""
import json
import os
import subprocess
import sys

from conftest import BIN_DIR, REPO, children
from msgpack_reader import unpack


def _read(daemon, name):
    with open(os.path.join(daemon.directory, name), "rb") as f:
        return f.read()


def test_get_returns_the_tree_so_far_and_the_session_goes_on(daemon):
    run = daemon.run("""
        import json
        import protond.profiler as proton
        s = proton.start("live")
        with proton.scope("step", metrics={"n": 1, "loss": 0.5, "offset": -300}):
            pass
        first = proton.data.get(s)
        first_msgpack = proton.data.get_msgpack(s)
        with proton.scope("step", metrics={"n": 2}):
            pass
        with open("first.json", "w") as f:
            json.dump(first, f)
        with open("first.msgpack", "wb") as f:
            f.write(first_msgpack)
        print(type(first_msgpack).__name__)
        proton.finalize(s, output_format="hatchet_msgpack")
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["bytes"]
    with open(os.path.join(daemon.directory, "first.json")) as f:
        first = json.load(f)
    # As Proton's get(): the JSON tree, [root, device_info], of what was recorded so far.
    root, device_info = first
    assert root["frame"] == {"name": "ROOT", "type": "function"}
    assert root["metrics"] == {"loss": 0, "n": 0, "offset": 0}
    assert children(root)["step"]["metrics"] == {"n": 1, "loss": 0.5, "offset": -300}
    assert device_info == {}
    # get_msgpack: the same tree, in MessagePack.
    assert unpack(_read(daemon, "first.msgpack")) == first
    # finalize wrote <name>.hatchet_msgpack (and no .hatchet), with all of the session.
    assert not os.path.exists(os.path.join(daemon.directory, "live.hatchet"))
    final_root, _ = unpack(_read(daemon, "live.hatchet_msgpack"))
    step = children(final_root)["step"]["metrics"]
    assert step == {"n": 3, "loss": 0.5, "offset": -300}
    assert isinstance(step["n"], int) and isinstance(step["loss"], float)


def test_get_reads_a_trace_sessions_tree_too(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        s = proton.start("traced", data="trace")
        with proton.scope("step", metrics={"n": 4}):
            pass
        print(proton.data.get(s)[0]["children"][0]["metrics"])
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["{'n': 4}"]


def test_hatchet_msgpack_holds_what_hatchet_holds(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        a = proton.start("as_json")
        b = proton.start("as_msgpack")
        with proton.scope("outer"):
            with proton.cpu_timed_scope("inner", metrics={"bytes": 4096}):
                pass
            with proton.scope("u" * 300, metrics={"big": 2**40}):
                pass
            with proton.scope("vectors", metrics={"v": [1, -2, 3], "w": (0.5, 1)}):
                pass
        proton.finalize(a, output_format="hatchet")
        proton.finalize(b, output_format="hatchet_msgpack")
    """)
    assert run.returncode == 0, run.stderr
    as_json = daemon.hatchet("as_json")
    as_msgpack = unpack(_read(daemon, "as_msgpack.hatchet_msgpack"))
    # cpu_time differs between the two sessions' measurements; all else is the same.
    for tree in (as_json, as_msgpack):
        children(children(tree[0])["outer"])["inner"]["metrics"].pop("cpu_time (ns)")
    assert as_msgpack == as_json
    assert children(children(as_json[0])["outer"])["u" * 300]["metrics"] == {"big": 2**40}
    # Vector metrics are arrays in both, as lists are in Proton's file.
    assert children(children(as_msgpack[0])["outer"])["vectors"]["metrics"] == {
        "v": [1, -2, 3], "w": [0.5, 1.0]}


def test_errors_and_what_is_not_supported_yet_read_as_protons(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        s = proton.start("errors")
        print(proton.data.get(None), proton.data.get_msgpack(None),
              proton.data.advance_phase(None), proton.data.is_phase_complete(None),
              proton.data.is_phase_flushed(None), proton.data.clear(None))
        for call in (lambda: proton.data.get(7),
                     lambda: proton.data.get(s, phase=1),
                     lambda: proton.data.advance_phase(s),
                     lambda: proton.data.is_phase_complete(s, 0),
                     lambda: proton.data.clear(s, phase=0, clear_up_to_phase=True),
                     lambda: proton.start("pf", mode="periodic_flushing:format=hatchet_msgpack"),
                     lambda: proton.finalize(s, output_format="hatchet_json")):
            try:
                call()
            except Exception as error:
                print(type(error).__name__, error)
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "None None None False False None",
        "RuntimeError Session has not been initialized: 7",
        "NotImplementedError protond.profiler does not support phases yet "
        "(proton.data.get(phase=1)); a session is one phase, phase 0",
        "NotImplementedError protond.profiler does not support phases yet "
        "(proton.data.advance_phase); a session is one phase, phase 0",
        "NotImplementedError protond.profiler does not support phases yet "
        "(proton.data.is_phase_complete); a session is one phase, phase 0",
        "NotImplementedError protond.profiler does not support phases yet "
        "(proton.data.clear); a session is one phase, phase 0",
        "NotImplementedError protond.profiler does not support "
        "mode='periodic_flushing:format=hatchet_msgpack' yet",
        "RuntimeError Unknown output format: hatchet_json",
    ]
    assert os.path.exists(os.path.join(daemon.directory, "errors.hatchet"))


def test_under_the_launcher_only_session_0_can_be_retrieved(daemon):
    daemon.write("script.py", """
        import protond.profiler as proton
        with proton.scope("work", metrics={"n": 1}):
            pass
        print(proton.data.get(0)[0]["children"][0]["metrics"])
        try:
            proton.data.get_msgpack(1)
        except ValueError as error:
            print(error)
    """)
    run = daemon.launch([sys.executable, "-m", "protond.profiler", "script.py"])
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "{'n': 1}", "Only one session can be retrieved when running from the command line."]


def test_with_profiling_disabled_get_returns_none(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        s = proton.start("off")
        print(s, proton.data.get(s), proton.data.get(0))
    """, env={"TRITON_PROTON_DISABLE": "1"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["None None None"]


def test_protonctl_exports_a_hatchet_file_as_msgpack(tmp_path):
    source = os.path.join(REPO, "view", "hatchet", "testdata", "h100_proton.hatchet")
    out = tmp_path / "h100.hatchet_msgpack"
    run = subprocess.run([os.path.join(BIN_DIR, "protonctl"), "export", source, "--format",
                          "hatchet_msgpack", "-o", str(out)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    with open(source) as f:
        expected = json.load(f)
    assert unpack(out.read_bytes()) == expected
