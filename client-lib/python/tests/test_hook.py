"""hook="triton" without a GPU: a stand-in `triton` package calls the launch hooks the way Triton's
launcher does around each kernel launch, and the .hatchet file shows what the hook recorded."""
import os
import textwrap

import pytest

from conftest import PACKAGE_DIR, children

# What protond.profiler uses of Triton: triton.knobs.runtime's launch hooks (chains of hooks since
# Triton 3.5, one function each before) and the LazyDict they are called with.
_FAKE_KNOBS = {
    "chain": """
        class HookChain:
            def __init__(self):
                self.calls = []
            def add(self, func):
                if func not in self.calls:
                    self.calls.append(func)
            def remove(self, func):
                if func in self.calls:
                    self.calls.remove(func)
            def __call__(self, *args):
                for call in self.calls:
                    call(*args)

        class runtime:
            launch_enter_hook = HookChain()
            launch_exit_hook = HookChain()
    """,
    "function": """
        class runtime:
            launch_enter_hook = None
            launch_exit_hook = None
    """,
}

# One launch as Triton makes it: the hooks around the (here absent) kernel launch.
_LAUNCHER = """
    from triton import knobs

    class LazyDict(dict):
        def __init__(self, data, extra=None):
            super().__init__(data)
            self.extra = extra
        def get(self):
            if self.extra is not None:
                self.update(self.extra())
                self.extra = None
            return self

    def launch(name, launch_metadata=None):
        metadata = LazyDict({"name": name, "function": 1234, "stream": 0}, launch_metadata)
        if knobs.runtime.launch_enter_hook is not None:
            knobs.runtime.launch_enter_hook(metadata)
        if knobs.runtime.launch_exit_hook is not None:
            knobs.runtime.launch_exit_hook(metadata)
"""


def _fake_triton(directory, knobs_kind):
    package = os.path.join(directory, "fake", "triton")
    os.makedirs(package)
    open(os.path.join(package, "__init__.py"), "w").close()
    with open(os.path.join(package, "knobs.py"), "w") as f:
        f.write(textwrap.dedent(_FAKE_KNOBS[knobs_kind]))
    with open(os.path.join(package, "launcher.py"), "w") as f:
        f.write(textwrap.dedent(_LAUNCHER))
    return {"PYTHONPATH": os.path.dirname(package) + os.pathsep + PACKAGE_DIR}


@pytest.mark.parametrize("knobs_kind", ["chain", "function"])
def test_launch_metadata_names_the_kernel_node_and_puts_metrics_on_it(daemon, knobs_kind):
    run = daemon.run("""
        import protond.profiler as proton
        from triton import knobs
        from triton.launcher import launch

        def matmul_metadata():
            return {"name": "matmul_128x64", "flops16": 2 * 128 * 64 * 32, "bytes": 4096,
                    "tiles": 8.5, "note": "not a number", "ok": True}

        proton.start("hooked", hook="triton")
        with proton.scope("step"):
            for _ in range(3):
                launch("matmul_kernel", matmul_metadata)
            launch("add_kernel")  # no launch_metadata: its node needs no hook
            proton.enter_scope("after", metrics={"n": 1})  # a scope, not the kernel's
            proton.exit_scope("after")
        proton.finalize()
        print("hooks left", knobs.runtime.launch_enter_hook in (None,) or
              getattr(knobs.runtime.launch_enter_hook, "calls", None) == [])
    """, env=_fake_triton(daemon.directory, knobs_kind))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["hooks left True"]
    root, _ = daemon.hatchet("hooked")
    step = children(root)["step"]
    assert list(children(step)) == ["matmul_128x64", "after"]
    kernel = children(step)["matmul_128x64"]
    assert kernel["metrics"] == {"flops16": 3 * 2 * 128 * 64 * 32, "bytes": 3 * 4096,
                                 "tiles": 25.5}
    assert children(step)["after"]["metrics"] == {"n": 1}


def test_without_triton_the_hook_says_so_once_and_profiling_goes_on(daemon):
    run = daemon.run("""
        import sys
        sys.modules["triton"] = None  # whatever is installed: import triton fails
        import protond.profiler as proton
        proton.start("plain", hook="triton")
        with proton.scope("work", metrics={"n": 1}):
            pass
        proton.finalize()
    """)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count('hook="triton" does nothing') == 1
    root, _ = daemon.hatchet("plain")
    assert children(root)["work"]["metrics"] == {"n": 1}
