"""context="python": the shim reads the launching thread's Python frames itself
(shim/python/python_stack_test.cc walks a real interpreter's frames). GPU-free here (no launch
ever asks for them); tests/gpu/compare_python_api.py checks the frames against Proton's files on
the GPU machine."""
from conftest import children


def test_the_shim_reads_the_frames_while_a_python_session_runs(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        from protond.profiler import python_context
        proton.start("frames", context="python")
        assert python_context.installed()
        proton.finalize()
        assert not python_context.installed()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_a_python_context_session_runs_and_writes_its_file(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        proton.start("frames", context="python")
        with proton.scope("work", metrics={"n": 1}):
            pass
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("frames")
    assert children(root)["work"]["metrics"] == {"n": 1}
