"""Issue 27: what one program records never spoils the store for the others. A NaN metric is
kept (and the sessions after it still record), a scope name over the record limit closes where
it should, a second daemon on the same state directory is refused, and a state directory removed
while the daemon runs is written anew."""
import os
import shutil
import subprocess
import sys
import time

from conftest import BIN_DIR, Daemon, children


def protonctl(daemon, *arguments):
    return subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket] +
                          list(arguments), capture_output=True, text=True, cwd=daemon.directory)


def test_a_nan_metric_is_kept_and_the_next_session_still_records(daemon):
    # Before: NULL went into metric_values.double_value (NOT NULL) and every later commit failed.
    first = daemon.run("""
        import protond.profiler as proton
        proton.start("nan")
        with proton.scope("s", metrics={"loss": float("nan"), "gain": float("inf")}):
            pass
        proton.finalize()
    """)
    assert first.returncode == 0, first.stderr
    second = daemon.run("""
        import protond.profiler as proton
        proton.start("after")
        with proton.scope("t", metrics={"loss": 1.5}):
            pass
        proton.finalize()
    """)
    assert second.returncode == 0, second.stderr

    root, _ = daemon.hatchet("nan")  # JSON has no NaN: null, as nlohmann and Proton write it
    assert children(root)["s"]["metrics"] == {"gain": None, "loss": None}
    root, _ = daemon.hatchet("after")
    assert children(root)["t"]["metrics"] == {"loss": 1.5}

    for metric, shown in (("loss", "nan"), ("gain", "inf")):
        tree = protonctl(daemon, "tree", "1", "-m", metric)
        assert tree.returncode == 0, tree.stderr
        assert [line.split()[0] for line in tree.stdout.splitlines() if line.endswith(" s")] == \
            [shown]
    exported = os.path.join(daemon.directory, "nan.export.hatchet")
    export = protonctl(daemon, "export", "1", "--format", "hatchet", "-o", exported)
    assert export.returncode == 0, export.stderr
    reread = protonctl(daemon, "tree", exported, "-m", "loss")
    assert reread.returncode == 0, reread.stderr
    assert [line.split()[0] for line in reread.stdout.splitlines() if line.endswith(" s")] == \
        ["nan"]


def test_a_scope_name_over_the_limit_closes_and_the_session_says_it_was_cut(daemon):
    # Before: the enter was cut to 4096 bytes, the exit compared uncut and refused, so "next"
    # nested under the long scope.
    protonctl_run = [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket, "run", "--"]
    run = daemon.launch(protonctl_run + [sys.executable, "-c", """
import protond.profiler as proton
proton.start("long")
with proton.scope("x" * 5000, metrics={"n": 1}):
    pass
with proton.scope("next", metrics={"n": 1}):
    pass
proton.finalize()
"""])
    assert run.returncode == 0, run.stderr
    assert ("protonctl: problem: scope name of 5000 bytes cut to its first 4096 bytes: '" +
            "x" * 40 + "...'") in run.stderr
    root, _ = daemon.hatchet("long")
    assert sorted(name[:1] + str(len(name)) for name in children(root)) == ["n4", "x4096"]


def test_a_second_daemon_on_the_same_state_directory_is_refused(daemon):
    # Before: only the socket was locked; both handed out the same session ids.
    state_dir = os.path.join(daemon.directory, "state")
    pid_file = os.path.join(state_dir, "protond.pid")
    for _ in range(200):  # written once the socket listens
        if os.path.exists(pid_file):
            break
        time.sleep(0.025)
    second = subprocess.run(
        [os.path.join(BIN_DIR, "protond"), "--socket",
         os.path.join(daemon.directory, "other.sock"), "--state-dir", state_dir],
        capture_output=True, text=True, timeout=30)
    assert second.returncode == 1
    assert second.stderr == (
        f"protond: another protond (pid {daemon.process.pid}, socket {daemon.socket}) uses the "
        f"store in {state_dir}; stop it, or give this one another --state-dir\n")
    assert not os.path.exists(os.path.join(daemon.directory, "other.sock"))
    with open(pid_file) as f:
        assert f.read().strip() == str(daemon.process.pid)
    assert protonctl(daemon, "sessions").returncode == 0  # the first one serves on


def test_a_removed_state_directory_is_written_anew_with_every_session(daemon):
    # Before: the daemon wrote on into the unlinked store, and after a restart every session was
    # gone.
    record = """
        import protond.profiler as proton
        proton.start("{name}")
        with proton.scope("s"):
            pass
        proton.finalize()
    """
    assert daemon.run(record.format(name="before")).returncode == 0
    state_dir = os.path.join(daemon.directory, "state")
    shutil.rmtree(state_dir)
    for _ in range(200):
        with open(daemon.log) as f:
            if "is written anew" in f.read():
                break
        time.sleep(0.025)
    with open(daemon.log) as f:
        log = f.read()
    assert (f"protond: the store {state_dir}/protond.db was removed while in use; writing it anew "
            "there, with every session\n") in log
    assert f"protond: the store {state_dir}/protond.db is written anew\n" in log
    with open(os.path.join(state_dir, "protond.pid")) as f:
        assert f.read().strip() == str(daemon.process.pid)
    assert daemon.run(record.format(name="after")).returncode == 0

    daemon.stop()
    restarted = Daemon(daemon.directory)
    try:
        sessions = protonctl(restarted, "sessions")
    finally:
        restarted.stop()
    assert sessions.returncode == 0, sessions.stderr
    listed = sessions.stdout.split()
    assert "before" in listed and "after" in listed, sessions.stdout
