"""protond.profiler against a real protond: what Proton's API records, and the .hatchet file
finalize() writes."""
import os
import subprocess
import sys
import time

from conftest import BIN_DIR, Daemon, children, program_environment


def test_scopes_metrics_and_states_land_in_the_hatchet_file(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        print("id", proton.start("out"))
        with proton.scope("model", metrics={"flops": 10}):
            for _ in range(3):
                with proton.cpu_timed_scope("step"):
                    proton.enter_scope("inner", metrics={"bytes": 4.5})
                    print("depth", proton.context.depth())
                    with proton.state("loading"):
                        pass
                    proton.exit_scope("inner")

        @proton.scope("decorated", metrics={"calls": 1})
        def decorated():
            return "result"

        print(decorated(), decorated())
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["id 0", "depth 3", "depth 3", "depth 3", "result result"]
    root, device_info = daemon.hatchet("out")
    assert device_info == {}
    assert root["frame"] == {"name": "ROOT", "type": "function"}
    assert root["metrics"] == {"bytes": 0, "calls": 0, "flops": 0}  # not the exclusive cpu_time
    top = children(root)
    assert list(top) == ["model", "decorated"]
    assert top["model"]["metrics"] == {"flops": 10}
    assert top["decorated"]["metrics"] == {"calls": 2}
    step = children(top["model"])["step"]
    assert list(step["metrics"]) == ["cpu_time (ns)"] and step["metrics"]["cpu_time (ns)"] > 0
    inner = children(step)["inner"]
    assert inner["metrics"] == {"bytes": 13.5}
    assert inner["children"] == []


def test_work_done_while_deactivated_is_not_recorded(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        session = proton.start("paused")
        with proton.scope("kept", metrics={"n": 1}):
            pass
        proton.deactivate(session)
        with proton.scope("dropped", metrics={"n": 1}):
            pass
        proton.activate(session)
        with proton.scope("kept", metrics={"n": 1}):
            pass
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("paused")
    assert {name: node["metrics"] for name, node in children(root).items()} == {"kept": {"n": 2}}


def test_session_ids_count_from_zero_and_a_name_reactivates_its_session(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        first = proton.start("a")
        again = proton.start("a")
        proton.finalize()
        print(first, again, proton.start("b"))
        proton.finalize()
        proton.finalize()  # nothing open: nothing to do
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["0 0 1"]


def test_sessions_open_together_each_record_while_active(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        a = proton.start("a")
        with proton.scope("both", metrics={"n": 1}):
            pass
        b = proton.start("b")
        with proton.scope("both", metrics={"n": 1}):
            pass
        proton.deactivate(a)
        with proton.scope("b_only", metrics={"n": 1}):
            pass
        proton.activate(a)
        print(a, b, proton.start("a"))
        try:
            proton.start("c", context="python")
        except NotImplementedError as error:
            print(error)
        proton.finalize(a)
        with proton.scope("after", metrics={"n": 1}):
            pass
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "0 1 0",
        "protond.profiler: sessions open at the same time must use the same context; session 0 "
        "(a) uses context='shadow', not 'python'"]
    metrics = {name: {child: node["metrics"] for child, node in children(daemon.hatchet(name)[0])
                      .items()} for name in ("a", "b")}
    assert metrics == {"a": {"both": {"n": 2}},
                       "b": {"both": {"n": 1}, "b_only": {"n": 1}, "after": {"n": 1}}}


def test_a_fifth_open_session_is_refused_and_the_others_go_on(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        print([proton.start(f"s{i}") for i in range(5)])
        with proton.scope("work", metrics={"n": 1}):
            pass
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["[0, 1, 2, 3, None]"]
    assert run.stderr == (
        "protond.profiler: session 's4' was not started: this process has 4 sessions open "
        "already (1, 2, 3, 4); stop one before starting another\n")
    for i in range(4):
        assert children(daemon.hatchet(f"s{i}")[0])["work"]["metrics"] == {"n": 1}


def test_errors_read_as_protons(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        proton.start("errors")
        proton.enter_scope("a")
        for call in (lambda: proton.exit_scope("b"), lambda: proton.activate(7),
                     lambda: proton.finalize(3),
                     lambda: proton.scope("m", metrics={"x": 1.5}).__enter__(),
                     lambda: proton.scope("m", metrics={"x": "text"}).__enter__(),
                     lambda: proton.cpu_timed_scope("c", metrics={"cpu_time": 1}),
                     lambda: proton.start("errors", context="bogus"),
                     lambda: proton.start("errors", data="bogus"),
                     lambda: proton.start("errors", hook=object()),
                     lambda: proton.finalize(output_format="chrome_trace")):
            if call is not None:
                with proton.scope("m", metrics={"x": 1}):
                    pass
            try:
                call()
            except Exception as error:
                print(type(error).__name__, error)
        print("depth", proton.context.depth())
        proton.exit_scope("a")
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "ValueError Scope name mismatch: b != a"
    assert lines[1] == "RuntimeError Session has not been initialized: 7"
    assert lines[2] == "RuntimeError Session has not been initialized: 3"
    assert lines[3].startswith("ValueError Metric value type mismatch for valueId")
    assert "(x): current=int64_t, new=double" in lines[3]
    assert lines[4] == ("TypeError metric 'x' has a value of type str; metrics are int or float, "
                        "or lists, tuples or 1-D tensors of them")
    assert lines[5] == "ValueError The metric name 'cpu_time' is reserved."
    assert lines[6] == "ValueError Unknown context: 'bogus' (known: shadow, python)"
    assert lines[7] == "ValueError Unknown data: 'bogus' (known: tree, trace)"
    assert lines[8] == ("NotImplementedError protond.profiler does not support hook objects other "
                        "than LaunchHook yet")
    assert lines[9] == ('ValueError output_format="chrome_trace" needs a session started with '
                        'data="trace"; session 0 (errors) keeps only its call tree: write "hatchet"')
    assert lines[10] == "depth 1"  # scopes whose metrics failed were closed again
    root, _ = daemon.hatchet("errors")
    assert children(children(root)["a"])["m"]["metrics"] == {"x": 10}


def test_with_profiling_off_session_calls_do_nothing(daemon):
    program = """
        import protond.profiler as proton
        session = proton.start("off")
        for call in (proton.activate, proton.deactivate, proton.finalize):
            call(session)
            call()
            call(0)  # Proton's first id, written into many programs
        proton.deactivate(session, flushing=True)
        with proton.scope("work"):
            print("done", session)
    """
    disabled = daemon.run(program, env={"TRITON_PROTON_DISABLE": "1"})
    no_daemon = daemon.run(program, env={"PROTOND_SOCKET": daemon.directory + "/nobody.sock"})
    for run in (disabled, no_daemon):
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines() == ["done None"]
    assert disabled.stderr == ""
    assert no_daemon.stderr.count("protond.profiler: profiling is off") == 1


def test_a_bool_metric_is_refused_not_stored_as_one(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        proton.start("bools")
        for metrics in ({"x": True}, {"n": 1, "x": False}):
            try:
                with proton.scope("s", metrics=metrics):
                    pass
            except TypeError as error:
                print(error)
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "metric 'x' has a value of type bool; metrics are int or float, or lists, tuples or "
        "1-D tensors of them"] * 2
    root, _ = daemon.hatchet("bools")
    assert children(root)["s"]["metrics"] == {"n": 1}


def test_without_a_daemon_the_program_runs_unprofiled(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        print("id", proton.start("none"))
        with proton.scope("work", metrics={"n": 1}):
            print("working")
        proton.finalize()
    """, env={"PROTOND_SOCKET": daemon.directory + "/nobody.sock"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["id None", "working"]
    assert "protond.profiler: profiling is off: no protond is listening at" in run.stderr


def test_triton_proton_disable_turns_it_off(daemon):
    run = daemon.run("""
        import os, protond.profiler as proton
        print("id", proton.start("off"))
        proton.finalize()
        print(os.path.exists("off.hatchet"))
    """, env={"TRITON_PROTON_DISABLE": "1"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["id None", "False"]


def test_under_protonctl_run_the_first_session_is_protonctls(daemon):
    protonctl = [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket]
    run = daemon.launch(protonctl + ["run", "--name", "outer", "--", sys.executable, "-c", """
import protond.profiler as proton
print(proton.start("mine"))
with proton.scope("s", metrics={"n": 1}):
    pass
proton.finalize()
with proton.scope("after", metrics={"n": 1}):
    pass
print(proton.start("second"))
proton.finalize()
"""])
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["0", "1"]
    assert "protonctl: session 1 (outer):" in run.stderr
    root, _ = daemon.hatchet("mine")
    assert {name: node["metrics"] for name, node in children(root).items()} == {"s": {"n": 1}}
    tree = subprocess.run(protonctl + ["tree", "1"], capture_output=True, text=True).stdout
    assert " s" in tree and "after" not in tree
    sessions = subprocess.run(protonctl + ["sessions"], capture_output=True, text=True).stdout
    assert [line.split()[1] for line in sessions.splitlines()[1:]] == ["outer", "second"]


def test_a_threads_own_scopes_start_from_root(daemon):
    # Its GPU work, when it has no scope open, lands in the main thread's scope: checked on the
    # GPU machine (tests/device/gpu_check.sh, autograd).
    run = daemon.run("""
        import threading
        import protond.profiler as proton
        proton.start("threads")

        def worker():
            with proton.scope("worker", metrics={"n": 1}):
                pass

        with proton.scope("train", metrics={"n": 1}):
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join()
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("threads")
    assert {name: node["metrics"] for name, node in children(root).items()} == {
        "train": {"n": 1}, "worker": {"n": 1}}


def test_a_program_killed_mid_session_keeps_its_profile_in_protond(daemon):
    # No finalize(), no .hatchet file: the records are in shared memory, and protond reads them
    # after the process is gone.
    run = daemon.run("""
        import os, signal
        import protond.profiler as proton
        proton.start("crashing")
        with proton.scope("before_crash", metrics={"steps": 3}):
            pass
        proton.enter_scope("open_at_crash")
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    assert run.returncode == -9
    protonctl = [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket]
    for _ in range(100):
        tree = subprocess.run(protonctl + ["tree", "1", "-m", "count,steps"],
                              capture_output=True, text=True, timeout=30)
        if "before_crash" in tree.stdout:
            break
        time.sleep(0.05)
    assert tree.returncode == 0, tree.stderr
    line = next(line for line in tree.stdout.splitlines() if "before_crash" in line)
    assert line.split()[:2] == ["1", "3"], tree.stdout
    assert not os.path.exists(os.path.join(daemon.directory, "crashing.hatchet"))


def test_a_session_pushed_by_protonctl_start_is_not_taken_for_the_programs_own(daemon):
    # A program with the shim preloaded and no session, profiled on demand: its own start()
    # opens a session beside the pushed one, as it would without protonctl.
    env = program_environment({"PROTOND_SOCKET": daemon.socket, "PROTOND_AUTOSTART": "0",
                               "LD_PRELOAD": os.path.join(BIN_DIR, "libprotond_shim.so")})
    program = subprocess.Popen([sys.executable, "-c", """
import sys
import protond.profiler as proton
print("ready", flush=True)
sys.stdin.readline()  # the on-demand session has started meanwhile
print(proton.start("mine"))
with proton.scope("work", metrics={"n": 1}):
    pass
proton.finalize()
"""], cwd=daemon.directory, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert program.stdout.readline() == "ready\n"
    protonctl = [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket]
    for _ in range(100):  # the shim registers 200 ms after it loads
        if str(program.pid) in subprocess.run(protonctl + ["processes"], capture_output=True,
                                              text=True).stdout.split():
            break
        time.sleep(0.05)
    start = subprocess.run(protonctl + ["start", "--pid", str(program.pid), "--name", "pushed"],
                           capture_output=True, text=True)
    assert start.returncode == 0, start.stdout + start.stderr
    out, err = program.communicate("go\n", timeout=60)
    assert program.returncode == 0, err
    assert out.splitlines() == ["0"]
    assert children(daemon.hatchet("mine")[0])["work"]["metrics"] == {"n": 1}
    sessions = subprocess.run(protonctl + ["sessions"], capture_output=True, text=True).stdout
    assert [line.split()[1] for line in sessions.splitlines()[1:]] == ["pushed", "mine"]


def test_after_a_daemon_restart_the_next_session_is_started_and_written(daemon):
    # The control library's calls share one gRPC channel; a restarted daemon at the same socket
    # must still get the next session's calls, and finalize() must write its file.
    program = subprocess.Popen([sys.executable, "-c", """
import sys
import protond.profiler as proton
for name in ("before", "after"):
    proton.start(name)
    with proton.scope(name, metrics={"n": 1}):
        pass
    proton.finalize()
    print("finalized", flush=True)
    if name == "before":
        sys.stdin.readline()  # the daemon has been restarted meanwhile
"""], cwd=daemon.directory, env=program_environment({"PROTOND_SOCKET": daemon.socket,
                                                      "PROTOND_AUTOSTART": "0"}),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert program.stdout.readline() == "finalized\n"
    daemon.stop()
    restarted = Daemon(daemon.directory)
    try:
        out, err = program.communicate("go\n", timeout=60)
    finally:
        restarted.stop()
    assert program.returncode == 0, err
    assert out == "finalized\n", err
    assert err == ""
    for name in ("before", "after"):
        root, _ = daemon.hatchet(name)
        assert {child: node["metrics"] for child, node in children(root).items()} == {
            name: {"n": 1}}
