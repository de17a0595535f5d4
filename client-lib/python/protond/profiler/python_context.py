"""Proton's context="python": GPU work sits under the Python call stack that launched it, one
node per frame named `<co_filename>:<lineno>@<co_name>`, outermost first. The shim asks this
module's provider for the context inside each CUDA API call that launches, copies or sets, on
the calling thread (protond_set_context_provider in shim.h); ctypes takes the GIL for the call,
as Proton does in its own C++. The provider walks the frames and hands back an interned
context, cached per distinct stack.

As in Triton 3.6's Proton (checked side by side on the GPU machine), a thread with no Python
frames of its own, such as PyTorch's autograd threads, puts its GPU work under ROOT. Unlike
Proton, protond's own frames are left out (Proton's show its hook and scope internals)."""
import atexit
import ctypes
import os
import sys

from .. import _shim

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def frame_name(code, line):
    return f"{code.co_filename}:{line}@{code.co_name}"


class PythonContext:
    def __init__(self, lib):
        self._lib = lib
        self._stacks = {}  # ((code, line), ...) outermost first -> context id
        self.provider = _shim.CONTEXT_PROVIDER(self.context)  # kept alive while installed

    def context(self):
        """The context of the caller's Python stack (the frames below this call); ROOT for a
        thread that has none."""
        try:
            frame = sys._getframe(1)
        except ValueError:  # a thread running no Python code
            return 0
        try:
            stack = []
            while frame is not None:
                code = frame.f_code
                if not code.co_filename.startswith(_PACKAGE_DIR):
                    stack.append((code, frame.f_lineno))
                frame = frame.f_back
            stack.reverse()
            key = tuple(stack)
            context = self._stacks.get(key)
            if context is None:
                context = self._stacks[key] = self._intern(stack)
            return context
        except Exception:  # never fail a CUDA call because of the profiler
            return _shim.NO_CONTEXT

    def _intern(self, stack):
        context = 0
        for code, line in stack:
            context = self._lib.protond_context_intern(context, frame_name(code, line).encode())
            if context == _shim.NO_CONTEXT:
                break
        return context


_installed = None


def installed():
    return _installed is not None


def install():
    global _installed
    if _installed is None:
        _installed = PythonContext(_shim.library())
        _shim.library().protond_set_context_provider(_installed.provider)


def uninstall():
    global _installed
    if _installed is not None:
        _shim.library().protond_set_context_provider(_shim.CONTEXT_PROVIDER())
        _installed = None


# CUDA work done while the interpreter shuts down must not call into it.
atexit.register(uninstall)
