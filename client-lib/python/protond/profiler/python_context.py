"""Proton's context="python": GPU work sits under the Python call stack that launched it, one
node per frame named `<co_filename>:<lineno>@<co_name>`, outermost first. The shim reads the
frames itself, from C, inside each CUDA API call that launches, copies or sets, on the calling
thread (protond_use_python_context in shim.h): no Python code runs per launch.

As in Triton 3.6's Proton (checked side by side on the GPU machine), a thread with no Python
frames of its own, such as PyTorch's autograd threads, puts its GPU work under ROOT. Unlike
Proton, protond's own frames are left out (Proton's show its hook and scope internals)."""
import atexit
import os
import sys

from .. import _shim

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_installed = False


def installed():
    return _installed


def install():
    global _installed
    if _installed:
        return
    lib = _shim.library()
    if lib.protond_use_python_context(_PACKAGE_DIR.encode()) != _shim.OK:
        print(f"protond.profiler: GPU work goes under scopes, not Python frames: "
              f"{_shim.last_error()}", file=sys.stderr)
        return
    _installed = True


def uninstall():
    global _installed
    if _installed:
        _shim.library().protond_set_context_provider(_shim.CONTEXT_PROVIDER())
        _installed = False


# CUDA work done while the interpreter shuts down must not take the GIL for its frames.
atexit.register(uninstall)
