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

    class LazyDict:  # as in triton/compiler/compiler.py
        def __init__(self, data):
            self.data = data
            self.extras = []
        def get(self):
            for func, args in self.extras:
                self.data = self.data | func(*args)
            self.extras.clear()
            return self.data
        def add(self, func, args):
            self.extras.append((func, args))

    def launch(name, launch_metadata=None):
        metadata = LazyDict({"name": name, "function": 1234, "stream": 0})
        if launch_metadata is not None:
            metadata.add(launch_metadata, ((1, 1, 1), {}, {"n": 64}))
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
def test_without_gpu_tracing_the_hook_runs_launch_metadata_and_records_nothing(daemon,
                                                                              knobs_kind):
    run = daemon.run("""
        import protond.profiler as proton
        from triton import knobs
        from triton.launcher import launch

        calls = []
        def matmul_metadata(grid, metadata, args):
            calls.append(args["n"])
            return {"name": "matmul_128x64", "flops16": 1000}

        proton.start("hooked", hook="triton")
        with proton.scope("step"):
            for _ in range(3):
                launch("matmul_kernel", matmul_metadata)
            launch("add_kernel")
        with proton.scope("after", metrics={"n": 1}):
            pass
        proton.finalize()
        print("launch_metadata calls", len(calls))
        print("hooks left", knobs.runtime.launch_enter_hook in (None,) or
              getattr(knobs.runtime.launch_enter_hook, "calls", None) == [])
    """, env=_fake_triton(daemon.directory, knobs_kind))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["launch_metadata calls 3", "hooks left True"]
    root, _ = daemon.hatchet("hooked")
    # No kernel ran, and the metadata's metrics have no kernel node to land on: not on "step".
    assert {name: node["metrics"] for name, node in children(root).items()} == {
        "step": {}, "after": {"n": 1}}


class _RecordingShim:
    """The shim's launch and metric calls, as the hook makes them while GPU tracing runs."""

    def __init__(self):
        self.calls = []

    def protond_launch_enter(self, name):
        self.calls.append(("launch", name))
        return 0

    def protond_metric_int64(self, name, value):
        self.calls.append(("int", name, value))
        return 0

    def protond_metric_double(self, name, value):
        self.calls.append(("double", name, value))
        return 0


def test_hook_opens_a_frame_named_by_launch_metadata_with_its_metrics(monkeypatch):
    monkeypatch.syspath_prepend(PACKAGE_DIR)
    from protond import _shim
    from protond.profiler import hook

    shim = _RecordingShim()
    monkeypatch.setattr(_shim, "library", lambda: shim)

    class LazyDict:  # as in triton/compiler/compiler.py
        def __init__(self, data, extra=None):
            self.data, self.extras = data, [extra] if extra else []

        def get(self):
            for func in self.extras:
                self.data = self.data | func()
            self.extras.clear()
            return self.data

    launch = hook.TritonLaunchHook()
    launch.enter(LazyDict({"name": "add_kernel", "function": 1, "stream": 0}))
    launch.enter(LazyDict({"name": "matmul_kernel", "function": 1, "stream": 0},
                          lambda: {"name": "matmul_128x64", "flops16": 1000, "bytes": 64,
                                   "flops": 2.5, "tiles": 8, "note": "text"}))
    # Only the metrics Triton 3.6's Proton takes from launch metadata; in any order.
    assert shim.calls[0] == ("launch", b"matmul_128x64")
    assert sorted(shim.calls[1:]) == [("double", b"flops", 2.5), ("int", b"bytes", 64),
                                      ("int", b"flops16", 1000)]


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


def test_a_bad_metadata_value_is_reported_once_and_the_launch_goes_on(monkeypatch, capsys):
    monkeypatch.syspath_prepend(PACKAGE_DIR)
    from protond import _shim
    from protond.profiler import hook

    shim = _RecordingShim()
    monkeypatch.setattr(_shim, "library", lambda: shim)

    class LazyDict:
        def __init__(self, data):
            self.data, self.extras = data, [None]

        def get(self):
            return self.data

    launch = hook.TritonLaunchHook()
    for _ in range(2):
        launch.enter(LazyDict({"name": "k", "flops": "many", "bytes": 8}))
    assert shim.calls == [("launch", b"k"), ("int", b"bytes", 8)] * 2
    assert capsys.readouterr().err.count("launch_metadata's 'flops' is not recorded") == 1


def test_launch_hook_include_and_exclude_filter_kernels_by_name(monkeypatch):
    monkeypatch.syspath_prepend(PACKAGE_DIR)
    from protond import _shim
    from protond.profiler import hook
    from protond.profiler.hooks.launch import LaunchHook

    shim = _RecordingShim()
    monkeypatch.setattr(_shim, "library", lambda: shim)
    ran = []

    class LazyDict:
        def __init__(self, name, given_name):
            self.data, self.given_name = {"name": name}, given_name

        def get(self):
            ran.append(self.data["name"])
            return {"name": self.given_name, "bytes": 8}

    launch = hook.TritonLaunchHook()
    assert LaunchHook() is LaunchHook()  # one per process, as Proton's
    try:
        # re.match: from the start of the compiled name; the given name must match too.
        LaunchHook().configure(include=".*matmul", exclude="skip_")
        launch.enter(LazyDict("add_kernel", "add"))  # left out before launch_metadata runs
        launch.enter(LazyDict("fused_matmul", "matmul_128"))
        launch.enter(LazyDict("my_matmul", "skip_me"))  # left out by the name it gives
        assert ran == ["fused_matmul", "my_matmul"]
        assert shim.calls == [("launch", b"matmul_128"), ("int", b"bytes", 8)]
        LaunchHook().configure()  # cleared: every kernel again
        launch.enter(LazyDict("add_kernel", "add"))
        assert shim.calls[-2:] == [("launch", b"add"), ("int", b"bytes", 8)]
    finally:
        LaunchHook().configure()


def test_start_takes_the_launch_hook_object(daemon):
    run = daemon.run("""
        import protond.profiler as proton
        from protond.profiler.hooks.launch import LaunchHook
        from triton.launcher import launch

        calls = []
        def metadata(grid, metadata, args):
            calls.append(1)
            return {"name": "renamed"}

        hook = LaunchHook()
        hook.configure(exclude="add")
        proton.start("hooked", hook=hook)
        launch("add_kernel", metadata)
        launch("matmul_kernel", metadata)
        proton.finalize()
        print("launch_metadata calls", len(calls))
        try:
            proton.start("other", hook=proton.hooks.Hook())
        except NotImplementedError as error:
            print(error)
    """, env=_fake_triton(daemon.directory, "chain"))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "launch_metadata calls 1",
        "protond.profiler does not support hook objects other than LaunchHook yet"]
