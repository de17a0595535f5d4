"""Proton's Triton launch hook (`start(hook="triton")`): around each Triton kernel launch, Triton
calls the hook with the kernel's launch metadata; the kernel's `launch_metadata(grid, metadata,
args)` may rename it and give it metrics (`flops16`, `bytes`, any other number). The shim then
makes the launched kernel the node of that name under the current scope, with those metrics on it
(protond_launch_enter/exit in shim.h). A launch that keeps its name and gives no metrics costs no
call into the shim: its node is the same without the hook."""
import numbers
import sys
import threading

from .. import _shim
from . import scope as _scope

# Launch metadata keys that are not metrics.
_RESERVED = frozenset(("name", "function", "stream"))


def _is_metric(key, value):
    if key in _RESERVED or isinstance(value, bool):
        return False
    return isinstance(value, numbers.Number) or hasattr(value, "item")  # tensors, as in Proton


class TritonLaunchHook:
    """The hook functions Triton calls; installed into triton.knobs.runtime while a session that
    asked for it is open."""

    def __init__(self):
        self._lib = _shim.library()
        self._local = threading.local()  # .open: this thread's launch frame is open
        self._names = {}  # kernel name -> its bytes, encoded once

    def enter(self, lazy_dict):
        own_name = dict.get(lazy_dict, "name")
        metadata = lazy_dict.get()  # runs the kernel's launch_metadata, if it has one
        name = dict.get(metadata, "name", own_name)  # LazyDict's get() takes no key
        metrics = [(key, value) for key, value in metadata.items() if _is_metric(key, value)]
        if name == own_name and not metrics:
            return
        encoded = self._names.get(name)
        if encoded is None:
            encoded = self._names[name] = str(name).encode()
        self._lib.protond_launch_enter(encoded)
        self._local.open = True
        for key, value in metrics:
            _scope._add_metric(self._lib, key, value)

    def exit(self, lazy_dict):
        del lazy_dict  # the frame was opened by enter
        if getattr(self._local, "open", False):
            self._local.open = False
            self._lib.protond_launch_exit()


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
    enter_chain, exit_chain = runtime.launch_enter_hook, runtime.launch_exit_hook
    if hasattr(enter_chain, "add"):  # Triton 3.5 and later: chains of hooks
        enter_chain.add(hook.enter)
        exit_chain.add(hook.exit)

        def restore():
            enter_chain.remove(hook.enter)
            exit_chain.remove(hook.exit)
    else:  # earlier: one function each
        runtime.launch_enter_hook, runtime.launch_exit_hook = hook.enter, hook.exit

        def restore():
            runtime.launch_enter_hook, runtime.launch_exit_hook = enter_chain, exit_chain
    _installed = (hook, restore)
    return True


def uninstall():
    global _installed
    if _installed is not None:
        _installed[1]()
        _installed = None
