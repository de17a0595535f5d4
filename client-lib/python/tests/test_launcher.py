"""`python -m protond.profiler`, Proton's command-line launcher: session 0 around a script or a
pytest run, the script's exit status kept, and the script's own session calls treated as
Proton treats them under its launcher."""
import os
import sys

from conftest import children

LAUNCHER = [sys.executable, "-m", "protond.profiler"]


def test_a_script_runs_as_main_in_session_0_and_keeps_its_exit_status(daemon):
    daemon.write("scripts/script.py", """
        import sys
        import protond.profiler as proton
        print("main", __name__, sys.argv)
        print("start", proton.start("own_name"))
        with proton.scope("work", metrics={"n": 1}):
            with proton.scope("inner", metrics={"n": 2}):
                pass
        for call in (proton.activate, lambda: proton.deactivate(1), lambda: proton.finalize(2)):
            try:
                call()
            except ValueError as error:
                print(error)
        proton.deactivate(0)
        with proton.scope("dropped", metrics={"n": 1}):
            pass
        proton.activate(0)
        sys.exit(3)
    """)
    run = daemon.launch(LAUNCHER + ["-n", "out", "scripts/script.py", "a", "--flag"])
    assert run.returncode == 3, run.stderr
    assert run.stdout.splitlines() == [
        "main __main__ ['scripts/script.py', 'a', '--flag']",
        "start None",
        "Only one session can be activated when running from the command line.",
        "Only one session can be deactivated when running from the command line.",
        "Only one session can be finalized when running from the command line.",
    ]
    assert not os.path.exists(os.path.join(daemon.directory, "own_name.hatchet"))
    root, _ = daemon.hatchet("out")
    assert root["metrics"] == {"n": 0}
    work = children(root)
    assert list(work) == ["work"] and work["work"]["metrics"] == {"n": 1}
    assert {name: node["metrics"] for name, node in children(work["work"]).items()} == {
        "inner": {"n": 2}}


def test_a_script_that_raises_is_reported_and_still_profiled(daemon):
    daemon.write("fails.py", """
        import protond.profiler as proton
        with proton.scope("before", metrics={"n": 1}):
            pass
        raise RuntimeError("boom")
    """)
    run = daemon.launch(LAUNCHER + ["fails.py"])
    assert run.returncode == 1
    assert "Traceback" in run.stderr and run.stderr.endswith("RuntimeError: boom\n")
    root, _ = daemon.hatchet("proton")  # the default name
    assert {name: node["metrics"] for name, node in children(root).items()} == {
        "before": {"n": 1}}


def test_the_scripts_finalize_writes_the_profile_then_as_protons_does(daemon):
    # Proton's finalize() with no session finalizes session 0 even under its launcher: what the
    # script does afterwards is not recorded, and the launcher's own finalize has nothing left.
    daemon.write("early.py", """
        import protond.profiler as proton
        with proton.scope("before", metrics={"n": 1}):
            pass
        proton.finalize()
        with proton.scope("after", metrics={"n": 1}):
            pass
    """)
    run = daemon.launch(LAUNCHER + ["--name", "early", "early.py"])
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("early")
    assert list(children(root)) == ["before"]


def test_a_pytest_run_is_profiled_and_its_status_kept(daemon):
    daemon.write("test_tiny.py", """
        import protond.profiler as proton

        def test_passes():
            with proton.scope("in_test", metrics={"n": 1}):
                pass

        def test_fails():
            with proton.scope("in_test", metrics={"n": 1}):
                assert False
    """)
    run = daemon.launch(LAUNCHER + ["-n", "py", "pytest", "-q", "-p", "no:cacheprovider",
                                    "test_tiny.py"])
    assert run.returncode == 1, run.stdout + run.stderr  # pytest's "tests failed"
    assert "1 failed, 1 passed" in run.stdout
    root, _ = daemon.hatchet("py")
    assert {name: node["metrics"] for name, node in children(root).items()} == {
        "in_test": {"n": 2}}
    run = daemon.launch(LAUNCHER + ["-n", "one", "pytest", "-q", "-p", "no:cacheprovider",
                                    "test_tiny.py::test_passes"])
    assert run.returncode == 0, run.stdout + run.stderr


def test_bad_or_unsupported_options_are_refused_before_the_script_runs(daemon):
    daemon.write("marker.py", "print('the script ran')\n")
    cases = [
        (["-c", "bogus", "marker.py"], "argument -c/--context: invalid choice: 'bogus'"),
        (["-k", "other", "marker.py"], "argument -k/--hook: invalid choice: 'other'"),
        (["-m", "default", "marker.py"],
         "error: protond.profiler does not support mode='default' yet"),
        (["-m", "pcsampling:interval=0", "marker.py"],
         "error: pcsampling interval must be a positive integer (cycles between samples), not "
         "'0'"),
        ([], "error: a script (or pytest) to run is required"),
    ]
    for arguments, message in cases:
        run = daemon.launch(LAUNCHER + arguments)
        assert run.returncode == 2, arguments
        assert run.stdout == "" and message in run.stderr, (arguments, run.stderr)
        assert run.stderr.startswith("usage: python -m protond.profiler [options] script.py")


def test_the_hook_option_reaches_start(daemon):
    daemon.write("hooked.py", """
        import protond.profiler as proton
        with proton.scope("work", metrics={"n": 1}):
            pass
    """)
    run = daemon.launch(LAUNCHER + ["-k", "triton", "-n", "hooked", "hooked.py"])
    assert run.returncode == 0, run.stderr
    # No Triton here: the hook says so once, as start(hook="triton") does, and profiling goes on.
    assert 'hook="triton" does nothing: Triton (triton.knobs) is not installed' in run.stderr
    root, _ = daemon.hatchet("hooked")
    assert list(children(root)) == ["work"]
