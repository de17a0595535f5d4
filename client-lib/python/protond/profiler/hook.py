"""Proton's Triton launch hook (`start(hook="triton")`): before each Triton kernel launch, Triton
calls the hook with the kernel's launch metadata; the kernel's `launch_metadata(grid, metadata,
args)` may rename it and give it metrics (`flops16`, `bytes`, any other number). The shim then
makes the launched kernel the node of that name under the current scope, with those metrics on it
(protond_launch_enter in shim.h). A kernel without launch_metadata costs no call into the
shim: its node is the same without the hook."""
import numbers
import sys

from .. import _shim
from . import scope as _scope

# Launch metadata keys that are not metrics.
_RESERVED = frozenset(("name", "function", "stream"))


def _is_metric(key, value):
    if key in _RESERVED or isinstance(value, bool):
        return False
    return isinstance(value, numbers.Number) or hasattr(value, "item")  # tensors, as in Proton


class TritonLaunchHook:
    """What Triton calls before each kernel launch, while a session that asked for it is open.
    The shim closes the launch frame when the launch returns, so no exit hook is needed (each
    hook costs a Python call on every launch)."""

    def __init__(self):
        self._lib = _shim.library()
        self._names = {}  # kernel name -> its bytes, encoded once

    def enter(self, lazy_dict):
        # Triton's LazyDict holds the kernel's own name and, when the kernel has launch_metadata,
        # that function to run: without it the kernel's node is the same as without the hook.
        if not getattr(lazy_dict, "extras", True):
            return
        metadata = lazy_dict.get()
        if self._lib.protond_launch_enter(self._encoded(metadata["name"])) != _shim.OK:
            return  # no GPU tracing: no kernel node to put metrics on
        for key, value in metadata.items():
            if _is_metric(key, value):
                _scope._add_metric(self._lib, key, value)

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
