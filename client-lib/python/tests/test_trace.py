"""proton.start(data="trace") against a real protond: finalize() writes Proton's Chrome trace,
<name>.chrome_trace, with every scope instance on its thread's lane."""
import json
import os
import sys
import time

# Two threads, each with nested scopes; the worker starts outside any scope, so its stack starts
# empty whether or not new threads inherit the main thread's scopes.
TWO_THREADS = """
    import threading, time
    import protond.profiler as proton
    proton.start("traced", data="trace")

    def work(tag):
        for i in range(3):
            with proton.scope(f"{tag}_outer"):
                with proton.scope(f"{tag}_inner"):
                    time.sleep(0.002)

    worker = threading.Thread(target=work, args=("worker",))
    worker.start()
    worker.join()
    work("main")
    proton.finalize()
"""


def load_trace(daemon, name):
    with open(os.path.join(daemon.directory, name + ".chrome_trace")) as f:
        return json.load(f)


def scopes_by_lane(trace):
    lanes = {}
    for event in trace["traceEvents"]:
        if event.get("cat") == "scope":
            lanes.setdefault(event["tid"], []).append(event)
    return lanes


def test_a_trace_session_writes_every_scope_instance_on_its_thread(daemon):
    run = daemon.run(TWO_THREADS)
    assert run.returncode == 0, run.stderr
    assert not os.path.exists(os.path.join(daemon.directory, "traced.hatchet"))
    trace = load_trace(daemon, "traced")
    assert trace["displayTimeUnit"] == "us"
    assert abs(trace["baseTimeNanoseconds"] / 1e9 - time.time()) < 60
    assert all(event["pid"] == 0 for event in trace["traceEvents"])
    names = {event["tid"]: event["args"]["name"]
             for event in trace["traceEvents"] if event["ph"] == "M"}
    assert names == {0: "CPU Thread 0", 1: "CPU Thread 1"}  # worker first: it ran first

    lanes = scopes_by_lane(trace)
    assert sorted(lanes) == [0, 1]
    for tid, tag in ((0, "worker"), (1, "main")):
        events = lanes[tid]
        assert sorted(e["name"] for e in events) == [f"{tag}_inner"] * 3 + [f"{tag}_outer"] * 3
        outers = [e for e in events if e["name"] == f"{tag}_outer"]
        inners = [e for e in events if e["name"] == f"{tag}_inner"]
        for e in events:
            assert e["ph"] == "X"
            assert e["dur"] >= 0
        for outer in outers:
            assert outer["args"]["call_stack"] == ["ROOT", f"{tag}_outer"]
        for inner in inners:
            assert inner["args"]["call_stack"] == ["ROOT", f"{tag}_outer", f"{tag}_inner"]
            assert inner["dur"] >= 2000  # microseconds: each slept 2 ms
            # Nested: inside exactly one outer instance of its thread.
            end = inner["ts"] + inner["dur"]
            around = [o for o in outers if o["ts"] <= inner["ts"] and end <= o["ts"] + o["dur"]]
            assert len(around) == 1
    # The earliest event is at ts 0; the worker's scopes all come before main's.
    all_scopes = lanes[0] + lanes[1]
    assert min(e["ts"] for e in all_scopes) == 0
    assert max(e["ts"] + e["dur"] for e in lanes[0]) <= min(e["ts"] for e in lanes[1])
    scope_ids = [e["args"]["scope_id"] for e in all_scopes]
    assert len(set(scope_ids)) == 12


def test_a_trace_session_can_still_write_its_tree(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        proton.start("both", data="trace")
        with proton.scope("s", metrics={"n": 3}):
            pass
        proton.finalize(output_format="hatchet")
    """)
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("both")
    assert root["children"][0]["frame"]["name"] == "s"
    assert root["children"][0]["metrics"] == {"n": 3}


def test_a_tree_session_exported_as_a_chrome_trace_is_refused_by_name(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        from protond import _shim
        proton.start("plain")
        with proton.scope("s"):
            pass
        lib = _shim.library()
        session = lib.protond_current_session()
        print(lib.protond_session_export(session, b"chrome_trace", b"plain.chrome_trace"))
        print(_shim.last_error())
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    result, error = run.stdout.splitlines()
    assert int(result) == 7  # PROTOND_ERR_UNAVAILABLE: the daemon refused
    assert "(plain) was not started with data=\"trace\"" in error
    assert error.startswith("session ")
    assert not os.path.exists(os.path.join(daemon.directory, "plain.chrome_trace"))


def test_the_launcher_writes_a_chrome_trace_for_data_trace(daemon):
    daemon.write("script.py", """
        import protond.profiler as proton
        with proton.scope("in_script"):
            pass
    """)
    run = daemon.launch([sys.executable, "-m", "protond.profiler", "-n", "cli", "-d", "trace",
                         "script.py"])
    assert run.returncode == 0, run.stdout + run.stderr
    trace = load_trace(daemon, "cli")
    scopes = [e for e in trace["traceEvents"] if e.get("cat") == "scope"]
    assert [e["args"]["call_stack"] for e in scopes] == [["ROOT", "in_script"]]
