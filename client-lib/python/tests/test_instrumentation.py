"""protond.profiler.instrumentation.record_buffer: a real Triton 3.6 host buffer (written on the
H100, with Proton's own numbers beside it in daemon/instrumentation/testdata) goes through the
shim and the daemon into the session's tree, under the kernel's node, with Proton's numbers."""
import os

from conftest import REPO, children

HOST_BUFFER = os.path.join(REPO, "daemon", "instrumentation", "testdata",
                           "triton36_loop_host_buffer.bin")


def test_a_triton_host_buffer_lands_under_its_kernel_with_protons_cycles(daemon):
    run = daemon.run(f"""
        import protond.profiler as proton
        from protond.profiler import instrumentation
        buffer = open({HOST_BUFFER!r}, "rb").read()
        print(instrumentation.record_buffer("kern", buffer, ["outer", "load"]))
        proton.start("instrumented")
        with proton.scope("step"):
            print(instrumentation.record_buffer("kern", buffer, ["outer", "load"]))
        try:
            instrumentation.record_buffer("kern", buffer[:20], ["outer", "load"],
                                          layout=instrumentation.CIRCULAR, block_bytes=7,
                                          num_warps=4)
        except ValueError as error:
            print("ValueError", error)
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "False",  # no session records yet
        "True",
        "ValueError instrumentation buffer of 20 bytes is not a whole number of 7-byte blocks",
    ]
    root = daemon.hatchet("instrumented")[0]
    outer = children(children(children(root)["step"])["kern"])["outer"]
    load = children(outer)["load"]  # it ran inside outer: nested, as Proton shows it
    # Proton wrote: outer {cycles 15921, normalized_cycles 995.0625}, load {1622, 101.375}.
    assert outer["metrics"]["cycles"] == 15921
    assert outer["metrics"]["normalized_cycles"] == 995.0625
    assert load["metrics"]["cycles"] == 1622
    assert load["metrics"]["normalized_cycles"] == 101.375
