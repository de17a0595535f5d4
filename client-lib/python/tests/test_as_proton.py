"""`protonctl run --as-proton`: an unmodified Proton script (`import triton.profiler as proton`)
records into the session protonctl started, and its finalize() writes Proton's .hatchet file.
No real Triton here: a fake installed `triton` stands in where one is needed."""
import os
import subprocess
import sys

from conftest import BIN_DIR, children

PROTON_SCRIPT = """
    import ctypes, os
    # What the shim records on its own before start() (GPU work, NVTX ranges): not in the profile
    # under --as-proton, as with Proton.
    native = ctypes.CDLL(os.environ["PROTOND_SHIM"])
    native.protond_scope_enter(b"before_start")
    native.protond_scope_exit(b"before_start")
    import triton
    import triton.profiler as proton
    from triton.profiler import scope
    import triton.profiler.context
    import triton.profiler.hooks.launch as proton_launch  # newer Proton's LaunchHook, data
    import protond.profiler
    print("aliased", proton is protond.profiler,
          triton.profiler.context is protond.profiler.context,
          proton_launch.LaunchHook is protond.profiler.hooks.launch.LaunchHook,
          triton.profiler.data is protond.profiler.data)
    print("session", proton.start("prof"))
    with scope("step", metrics={"flops": 7}):
        with proton.scope("inner"):
            print("depth", proton.context.depth())
    proton.finalize()
    with scope("after_finalize"):
        pass
    print("triton:", getattr(triton, "FAKE", None) or triton.__doc__.split(":")[0])
"""


def protonctl_run(daemon, arguments, env=None):
    """`protonctl run ARGUMENTS` in the daemon's directory, without the package on PYTHONPATH
    (protonctl provides it)."""
    return daemon.launch(
        [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket, "run"] + arguments,
        env=dict({"PYTHONPATH": None, "PROTOND_SHIM": None}, **(env or {})))


def protonctl(daemon, *arguments):
    return subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket] +
                          list(arguments), capture_output=True, text=True, timeout=30)


def test_a_proton_script_records_into_the_session_protonctl_started(daemon):
    script = daemon.write("proton_script.py", PROTON_SCRIPT)
    run = protonctl_run(daemon, ["--as-proton", "--name", "as_proton", "--", sys.executable,
                                 script])
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["aliased True True True True", "session 0", "depth 2",
                                       "triton: Stand-in for Triton, which is not installed"]
    assert "protonctl: session 1 (as_proton):" in run.stderr
    root, _ = daemon.hatchet("prof")
    assert root["metrics"] == {"flops": 0}
    step = children(root)
    assert list(step) == ["step"] and step["step"]["metrics"] == {"flops": 7}
    assert list(children(step["step"])) == ["inner"]
    # One daemon session, protonctl's, holds the profile; nothing was recorded after finalize().
    sessions = protonctl(daemon, "sessions").stdout.splitlines()
    assert len(sessions) == 2 and "as_proton" in sessions[1], sessions
    tree = protonctl(daemon, "tree", "1").stdout
    assert "step" in tree and "inner" in tree and "after_finalize" not in tree
    assert "before_start" not in tree


def test_an_installed_triton_keeps_everything_but_its_profiler(daemon):
    # A fake Triton whose own profiler must never load, and a user's sitecustomize, which must
    # still run after protond's.
    site = os.path.join(daemon.directory, "site")
    daemon.write("site/triton/__init__.py", "FAKE = 'real triton'\n")
    daemon.write("site/triton/language.py", "LANGUAGE = 'real language'\n")
    daemon.write("site/triton/profiler/__init__.py",
                 "raise RuntimeError('the real triton.profiler was imported')\n")
    daemon.write("site/sitecustomize.py", "print('user sitecustomize')\n")
    script = daemon.write("proton_script.py", PROTON_SCRIPT + """
    import triton.language
    print(triton.language.LANGUAGE)
    try:
        import triton.profiler.viewer
    except ModuleNotFoundError as error:
        print(error)
    """)
    run = protonctl_run(daemon, ["--as-proton", "--", sys.executable, script],
                        env={"PYTHONPATH": site})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "user sitecustomize", "aliased True True True True", "session 0", "depth 2", "triton: real triton",
        "real language",
        "No module named 'triton.profiler.viewer': protond.profiler, which stands in for "
        "triton.profiler, has no 'protond.profiler.viewer'"]
    root, _ = daemon.hatchet("prof")
    assert list(children(root)) == ["step"]


def test_the_launcher_also_runs_under_protonctl(daemon):
    # `python -m triton.profiler.proton` is Proton's own launcher module: under --as-proton it
    # is protond's, and its session 0 is protonctl's session.
    script = daemon.write("plain.py", """
        import triton.profiler as proton
        print("start", proton.start("ignored"))
        with proton.scope("work", metrics={"n": 1}):
            pass
    """)
    run = protonctl_run(daemon, ["--as-proton", "--", sys.executable, "-m",
                                 "triton.profiler.proton", "-n", "launched", script])
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["start None"]
    root, _ = daemon.hatchet("launched")
    assert {name: node["metrics"] for name, node in children(root).items()} == {"work": {"n": 1}}
    assert "work" in protonctl(daemon, "tree", "1").stdout


def test_a_missing_python_package_is_a_clear_error(daemon):
    marker = os.path.join(daemon.directory, "ran")
    run = protonctl_run(daemon, ["--as-proton", "--", "touch", marker],
                        env={"PROTOND_PYTHON_DIR": os.path.join(daemon.directory, "nothing")})
    assert run.returncode == 1
    assert run.stderr.startswith(
        "protonctl: --as-proton needs the protond Python package, which is not in ")
    assert "set PROTOND_PYTHON_DIR" in run.stderr
    assert not os.path.exists(marker)
    assert protonctl(daemon, "sessions").stdout.count("\n") <= 1  # no session was started


def test_protons_mode_module_and_protonctls_mode(daemon):
    script = daemon.write("sampled.py", """
        import os
        import triton.profiler as proton
        import triton.profiler.mode
        from triton.profiler.mode import PCSampling
        print(PCSampling is proton.mode.PCSampling is triton.profiler.mode.PCSampling,
              os.environ["PROTOND_SESSION_MODE"])
        print("session", proton.start("sampled", mode=PCSampling(interval=4096)))
        with proton.scope("work", metrics={"n": 1}):
            pass
        proton.finalize()
    """)
    run = protonctl_run(daemon, ["--as-proton", "--name", "sampled", "--mode",
                                 "pc_sampling:interval=4096", "--", sys.executable, script])
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["True pcsampling:interval=4096", "session 0"]
    assert "not applied" not in run.stderr
    sessions = protonctl(daemon, "sessions").stdout.splitlines()
    assert sessions[0].split()[-1] == "MODE" and len(sessions) == 2, sessions
    assert sessions[1].split()[-1] == "pcsampling:interval=4096", sessions

    # protonctl's session has no mode: the script's is not applied to it, and start() says so.
    run = protonctl_run(daemon, ["--as-proton", "--", sys.executable, script])
    assert run.returncode == 0, run.stderr
    assert ("protond.profiler: session 'sampled' is the one protonctl run started, which has no "
            "mode: mode='pcsampling:interval=4096' is not applied (protonctl run --mode sets it)"
            in run.stderr)
