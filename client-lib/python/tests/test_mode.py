"""Proton's `mode`: protond.profiler.mode.PCSampling, start(mode=...) checked through the shim,
the mode the daemon stores and `protonctl sessions` lists, and the launcher's -m."""
import os
import subprocess
import sys

from conftest import BIN_DIR, run_program

LAUNCHER = [sys.executable, "-m", "protond.profiler"]


def listed_modes(daemon):
    """{session name: MODE} as `protonctl sessions` lists them ("-" for none)."""
    listed = subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket,
                             "sessions"], capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split()[-1] == "MODE", listed.stdout
    return {row.split()[1]: row.split()[-1] for row in rows}


def test_pc_sampling_prints_itself_as_proton_and_refuses_a_bad_interval(tmp_path):
    run = run_program("""
        import dataclasses
        import protond.profiler as proton
        from protond.profiler.mode import BaseMode, PCSampling
        print(str(PCSampling()), str(PCSampling(interval=4096)), proton.mode.PCSampling(64))
        print(isinstance(PCSampling(), BaseMode), PCSampling(8) == PCSampling(interval=8))
        for interval in (0, -5):
            try:
                PCSampling(interval=interval)
            except ValueError as error:
                print("ValueError", error)
        try:
            PCSampling().interval = 5
        except dataclasses.FrozenInstanceError:
            print("frozen")
    """, str(tmp_path), {})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "pcsampling:interval=1000 pcsampling:interval=4096 pcsampling:interval=64",
        "True True",
        "ValueError Interval must be a positive integer.",
        "ValueError Interval must be a positive integer.",
        "frozen",
    ]


def test_each_way_of_giving_a_mode_is_stored_as_the_daemon_writes_it(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        from protond.profiler import mode
        for name, given in (("none", None), ("empty", ""), ("text", "pcsampling"),
                            ("interval", "pcsampling:interval=4096"),
                            ("protons", "pc_sampling:interval=1000"),
                            ("object", mode.PCSampling(interval=64))):
            print(proton.start(name, mode=given))
            proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "1", "2", "3", "4", "5"]
    assert listed_modes(daemon) == {
        "none": "-", "empty": "-", "text": "pcsampling", "interval": "pcsampling:interval=4096",
        "protons": "pcsampling:interval=1024", "object": "pcsampling:interval=64"}


def test_bad_modes_raise_and_start_nothing(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        for call in (lambda: proton.start("zero", mode="pcsampling:interval=0"),
                     lambda: proton.start("option", mode="pc_sampling:period=4"),
                     lambda: proton.start("instrumented", mode="default"),
                     lambda: proton.start("instrumented", mode="mma:x=1"),
                     lambda: proton.start("sampled", mode="pcsampling"),
                     lambda: proton.start("plain"),
                     lambda: proton.start("other", mode="pcsampling:interval=64")):
            try:
                print("started", call())
            except Exception as error:
                print(type(error).__name__, error)
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "ValueError pcsampling interval must be a positive integer (cycles between samples), "
        "not '0'",
        "ValueError unknown pcsampling option 'period=4' (known: interval=CYCLES)",
        "NotImplementedError protond.profiler does not support mode='default' yet",
        "NotImplementedError protond.profiler does not support mode='mma:x=1' yet",
        "started 0",
        "ValueError Cannot add a session with the same profiler but a different mode than "
        "existing sessions: session 0 (sampled) uses mode='pcsampling', not ''",
        "ValueError Cannot add a session with the same profiler but a different mode than "
        "existing sessions: session 0 (sampled) uses mode='pcsampling', not "
        "'pcsampling:interval=64'",
    ]
    assert listed_modes(daemon) == {"sampled": "pcsampling"}


def test_sessions_open_together_with_one_mode(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        print(proton.start("a", mode="pcsampling:interval=64"),
              proton.start("b", mode=proton.mode.PCSampling(interval=64)))
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "1"]
    assert listed_modes(daemon) == {"a": "pcsampling:interval=64", "b": "pcsampling:interval=64"}


def test_the_launchers_mode_reaches_session_0(daemon):
    daemon.write("sampled.py", """
        import protond.profiler as proton
        with proton.scope("work", metrics={"n": 1}):
            pass
    """)
    run = daemon.launch(LAUNCHER + ["-m", "pcsampling:interval=4096", "-n", "sampled",
                                    "sampled.py"])
    assert run.returncode == 0, run.stderr
    assert listed_modes(daemon) == {"sampled": "pcsampling:interval=4096"}
