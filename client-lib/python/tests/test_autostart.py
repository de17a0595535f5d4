"""start() with no protond at the socket: a private daemon is started and outlives the program
(PROTOND_AUTOSTART=0 turns that off), and a start that cannot succeed fails fast, warning once."""
import json
import os
import shutil
import socket
import subprocess
import time

from conftest import BIN_DIR, children, processes_mentioning

PROGRAM = """
    import protond.profiler as proton
    print("id", proton.start("auto"))
    with proton.scope("work", metrics={"n": 3}):
        pass
    proton.finalize()
"""


def test_start_autostarts_a_daemon_that_outlives_the_program(autostart):
    run = autostart.run(PROGRAM)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["id 0"]
    # As protonctl run says it (it said nothing): where the daemon is, and its store.
    assert run.stderr == (f"protond: started protond at {autostart.socket} (its store and log: "
                          f"{autostart.state_dir})\n")
    with open(os.path.join(autostart.directory, "auto.hatchet")) as f:
        root, _ = json.load(f)
    assert children(root)["work"]["metrics"] == {"n": 3}
    # The daemon runs on, alone at the socket, and names itself in its state directory.
    [pid] = autostart.daemons()
    with open(os.path.join(autostart.state_dir, "protond.pid")) as f:
        assert int(f.read()) == pid
    with open(os.path.join(autostart.state_dir, "protond.log")) as f:
        assert f"listening at {autostart.socket}" in f.read()
    sessions = autostart.protonctl("sessions")
    assert sessions.returncode == 0, sessions.stderr
    assert "auto" in sessions.stdout
    tree = autostart.protonctl("tree", "1", "-m", "n")
    assert tree.returncode == 0, tree.stderr
    assert "work" in tree.stdout
    # A second program uses that daemon instead of starting another.
    again = autostart.run(PROGRAM)
    assert again.returncode == 0, again.stderr
    assert autostart.daemons() == [pid]


def test_a_daemon_started_after_a_killed_one_keeps_its_store(autostart):
    """The user's own `protond --socket S --state-dir D` was SIGKILLed: the daemon start()
    started then kept its store in S.state, and the user's sessions seemed gone."""
    by_hand_store = os.path.join(autostart.directory, "by-hand")
    by_hand = subprocess.Popen([os.path.join(BIN_DIR, "protond"), "--socket", autostart.socket,
                                "--state-dir", by_hand_store], stderr=subprocess.DEVNULL)
    for _ in range(200):
        if autostart.protonctl("sessions").returncode == 0:
            break
        time.sleep(0.025)
    before = autostart.run(PROGRAM.replace('"auto"', '"before"'))
    assert before.returncode == 0, before.stderr
    by_hand.kill()
    by_hand.wait()

    run = autostart.run(PROGRAM)
    assert run.returncode == 0, run.stderr
    assert run.stderr == (f"protond: started protond at {autostart.socket} (its store and log: "
                          f"{by_hand_store})\n")
    sessions = autostart.protonctl("sessions")
    assert "before" in sessions.stdout and "auto" in sessions.stdout, sessions.stdout
    assert not os.path.exists(autostart.state_dir)


def test_programs_autostarting_at_once_end_with_one_daemon(autostart):
    programs = [autostart.start(PROGRAM.replace('"auto"', f'"auto{i}"')) for i in range(4)]
    for i, program in enumerate(programs):
        out, err = program.communicate(timeout=60)
        assert program.returncode == 0, err
        assert out.splitlines() == ["id 0"], err
        assert os.path.exists(os.path.join(autostart.directory, f"auto{i}.hatchet"))
    assert len(autostart.daemons()) == 1
    sessions = autostart.protonctl("sessions")
    assert all(f"auto{i}" in sessions.stdout for i in range(4)), sessions.stdout


TIMED_START = """
    import time, protond.profiler as proton
    for _ in range(2):  # the first start() also loads the control library (gRPC)
        began = time.perf_counter()
        session = proton.start("off")
        print("id", session, "ms", round((time.perf_counter() - began) * 1000))
    with proton.scope("work", metrics={"n": 1}):
        pass
    proton.finalize(session)
    print("done")
"""


def start_result(run):
    """(session id, milliseconds the first and the second start() took) as TIMED_START prints
    them."""
    assert run.returncode == 0, run.stderr
    first, second, done = run.stdout.splitlines()
    assert done == "done"
    _, session, _, first_ms = first.split()
    assert second.split()[1] == session
    return session, (int(first_ms), int(second.split()[3]))


def test_with_autostart_off_start_fails_fast_with_one_warning(autostart):
    run = autostart.run(TIMED_START, env={"PROTOND_AUTOSTART": "0"})
    session, (first_ms, second_ms) = start_result(run)
    assert session == "None"
    assert first_ms < 500 and second_ms < 100  # 3000 each, before they failed fast
    assert run.stderr == (f"protond.profiler: profiling is off: no protond is listening at "
                          f"{autostart.socket} (No such file or directory); PROTOND_AUTOSTART=0, "
                          "so none was started\n")
    assert autostart.daemons() == []
    # A socket file that nobody listens on (a daemon that died) fails as fast.
    os.makedirs(os.path.dirname(autostart.socket))
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(autostart.socket)
    stale.close()
    run = autostart.run(TIMED_START, env={"PROTOND_AUTOSTART": "0"})
    session, (first_ms, second_ms) = start_result(run)
    assert session == "None" and first_ms < 500 and second_ms < 100
    assert "(Connection refused); PROTOND_AUTOSTART=0" in run.stderr


def test_a_daemon_that_does_not_answer_yet_gets_its_deadline(autostart):
    os.makedirs(os.path.dirname(autostart.socket))
    with socket.socket(socket.AF_UNIX) as silent:  # accepts connections, never answers
        silent.bind(autostart.socket)
        silent.listen(16)
        run = autostart.run(TIMED_START)
    session, (first_ms, second_ms) = start_result(run)
    assert session == "None"
    assert first_ms >= 2900 and second_ms >= 2900
    # Named as a daemon that does not answer (this test's process listens), not as absent.
    assert run.stderr == (f"protond.profiler: profiling is off: protond (pid {os.getpid()}) at "
                          f"{autostart.socket} is not answering (stopped or overloaded)\n")
    assert autostart.daemons() == []


def test_when_the_daemon_cannot_be_started_the_warning_says_why(autostart):
    # A shim and control library without protond beside them.
    lonely = os.path.join(autostart.directory, "lonely")
    os.makedirs(lonely)
    for library in ("libprotond_shim.so", "libprotond_shim_core.so", "libprotond_control.so"):
        shutil.copy(os.path.join(BIN_DIR, library), lonely)
    run = autostart.run(TIMED_START,
                        env={"PROTOND_SHIM": os.path.join(lonely, "libprotond_shim.so")})
    session, _ = start_result(run)
    assert session == "None"
    assert run.stderr == (f"protond.profiler: profiling is off: no protond is listening at "
                          f"{autostart.socket} (No such file or directory), and starting one "
                          f"failed: cannot run {lonely}/protond: No such file or directory\n")
    assert processes_mentioning(autostart.socket) == []


def test_a_shim_loaded_by_a_relative_name_starts_the_protond_beside_it(autostart):
    """LD_PRELOAD=./libprotond_shim.so and the like: the name is relative to the folder of that
    moment; the program then moves to a folder that holds a ./protond, which never runs."""
    work = os.path.join(autostart.directory, "work")
    os.mkdir(work)
    marker = os.path.join(autostart.directory, "planted-protond-ran")
    with open(os.path.join(work, "protond"), "w") as f:
        f.write(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    os.chmod(os.path.join(work, "protond"), 0o700)
    run = autostart.run(f"""
        import os
        os.chdir({BIN_DIR!r})
        from protond import _shim
        assert _shim.library() is not None, _shim.load_error()
        os.chdir({work!r})
        import protond.profiler as proton
        print("id", proton.start("relative"))
        proton.finalize()
    """, env={"PROTOND_SHIM": "./libprotond_shim.so"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["id 0"]
    assert run.stderr.startswith("protond: started protond at ")
    assert not os.path.exists(marker)
    assert len(autostart.daemons()) == 1
    assert os.path.exists(os.path.join(work, "relative.hatchet"))
