"""Proton's Triton launch hook (`start(hook="triton")`): before each Triton kernel launch, Triton
calls the hook with the kernel's launch metadata; the kernel's `launch_metadata(grid, metadata,
args)` may rename it and give it metrics (`flops8/16/32/64`, `flops`, `bytes`). The shim then
makes the launched kernel the node of that name under the current scope, with those metrics on it
(protond_launch_enter in shim.h). A kernel without launch_metadata costs no call into the
shim: its node is the same without the hook."""
import sys

from .. import _shim
from . import python_context as _python_context
from . import scope as _scope
from .hooks.launch import LaunchHook

# The launch metadata that Triton 3.6's Proton records; other keys are ignored, as there.
METRICS = frozenset(("flops8", "flops16", "flops32", "flops64", "flops", "bytes"))


class TritonLaunchHook:
    """What Triton calls before each kernel launch, while a session that asked for it is open.
    The shim closes the launch frame when the launch returns, so no exit hook is needed (each
    hook costs a Python call on every launch)."""

    def __init__(self):
        self._lib = _shim.library()
        self._names = {}  # kernel name -> its bytes, encoded once
        self._refused = set()  # metric keys already reported as not recordable
        self._filter = LaunchHook()  # the process's one, as configure() left it

    def enter(self, lazy_dict):
        # Triton's LazyDict holds the kernel's own name and, when the kernel has launch_metadata,
        # that function to run: without it the kernel's node is the same as without the hook,
        # except under context="python", where Proton's kernels sit below the hook's frames.
        if not getattr(lazy_dict, "extras", True) and not _python_context.installed():
            return
        # LaunchHook.configure's filter, on the compiled name first, so that launch_metadata
        # does not run for a kernel left out, then on the name launch_metadata gives, as Proton.
        if not self._filter.matches(getattr(lazy_dict, "data", {}).get("name")):
            return
        metadata = lazy_dict.get()
        if not self._filter.matches(metadata["name"]):
            return
        if self._lib.protond_launch_enter(self._encoded(metadata["name"])) != _shim.OK:
            return  # no GPU tracing: no kernel node to put metrics on
        for key in METRICS.intersection(metadata):
            try:
                _scope._add_metric(self._lib, key, metadata[key])
            except (TypeError, ValueError) as error:  # never fail the launch: say so, once
                if key not in self._refused:
                    self._refused.add(key)
                    print(f"protond.profiler: launch_metadata's {key!r} is not recorded: "
                          f"{error}", file=sys.stderr)

    def _encoded(self, name):
        encoded = self._names.get(name)
        if encoded is None:
            encoded = self._names[name] = str(name).encode()
        return encoded


_installed = None  # (hook, restore) while installed


def _runtime_knobs():
    try:
        from triton import knobs
    except ImportError:
        return None
    return knobs.runtime


def install():
    """Installs the hook into Triton's launcher; returns False (and says why) when Triton cannot
    take it."""
    global _installed
    if _installed is not None:
        return True
    runtime = _runtime_knobs()
    if runtime is None:
        print('protond.profiler: hook="triton" does nothing: Triton (triton.knobs) is not '
              "installed", file=sys.stderr)
        return False
    hook = TritonLaunchHook()
    chain = runtime.launch_enter_hook
    if hasattr(chain, "add"):  # Triton 3.5 and later: a chain of hooks
        chain.add(hook.enter)

        def restore():
            chain.remove(hook.enter)
    else:  # earlier: one function
        runtime.launch_enter_hook = hook.enter

        def restore():
            runtime.launch_enter_hook = chain
    _installed = (hook, restore)
    return True


def uninstall():
    global _installed
    if _installed is not None:
        _installed[1]()
        _installed = None
