"""context="python": the provider the shim calls inside CUDA launches names the Python stack.
GPU-free here (no launch ever calls it); tests/gpu/compare_python_api.py checks it against
Proton's files on the GPU machine."""
import sys

from conftest import PACKAGE_DIR, children


class _InterningShim:
    """protond_context_intern as the shim does it: an id per (parent, name)."""

    def __init__(self):
        self.contexts = {}  # (parent, name) -> id
        self.calls = 0

    def protond_context_intern(self, parent, name):
        self.calls += 1
        return self.contexts.setdefault((parent, name), len(self.contexts) + 1)

    def path(self, context):
        names = {child: (parent, name) for (parent, name), child in self.contexts.items()}
        path = []
        while context:
            context, name = names[context]
            path.append(name.decode())
        return path[::-1]


def _launch(python_context):
    return python_context.context()  # the line the provider names for this frame


def test_the_provider_names_the_callers_frames_outermost_first(monkeypatch):
    monkeypatch.syspath_prepend(PACKAGE_DIR)
    from protond.profiler.python_context import PythonContext
    shim = _InterningShim()
    python_context = PythonContext(shim)

    def step():
        return _launch(python_context)

    here = sys._getframe()
    path = shim.path(step())
    call_line = here.f_lineno - 1
    assert path[-3:] == [
        f"{__file__}:{call_line}@{here.f_code.co_name}",
        f"{__file__}:{step.__code__.co_firstlineno + 1}@step",
        f"{__file__}:{_launch.__code__.co_firstlineno + 1}@_launch",
    ]
    outermost = here
    while outermost.f_back is not None:
        outermost = outermost.f_back
    assert path[0] == f"{outermost.f_code.co_filename}:{outermost.f_lineno}@" \
                      f"{outermost.f_code.co_name}"

    contexts = []
    for _ in range(3):
        contexts.append(step())
        if len(contexts) == 1:
            calls = shim.calls
    assert len(set(contexts)) == 1 and shim.calls == calls, "a stack seen before is cached"


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
