"""Intra-kernel profile buffers into protond (docs/instrumentation.md): the buffer a kernel with
proton records wrote, copied out after its launch, goes under the kernel's node in the session's
tree as per-scope cycles, decoded by the daemon.

Triton 3.6's own instrumentation (`triton.profiler.start(backend="instrumentation")`) keeps the
last launch's buffer when asked to:

    from triton.profiler.hooks.instrumentation import InstrumentationHook
    InstrumentationHook.enable_host_buffer = True
    kernel[grid](...)
    protond.profiler.instrumentation.record_buffer(
        "kernel", bytes(InstrumentationHook.host_buffer.numpy()), ["outer", "load"])

`scope_names` are the kernel's scope names by scope id (Triton numbers scopes in the order its
compiler meets them).
"""
import ctypes

from .. import _shim

CIRCULAR = 1  # PROTOND_BUFFER_CIRCULAR: the device buffer, as the kernel wrote it
TRITON_HOST = 2  # PROTOND_BUFFER_TRITON_HOST: Triton 3.6's host buffer (its header, then that)


def record_buffer(kernel_name, buffer, scope_names, *, layout=TRITON_HOST, block_bytes=0,
                  num_warps=0, profiled_warps=(), device_id=0):
    """Hands one launch's profile buffer (bytes-like) to protond, under the current scope. With
    layout=CIRCULAR, block_bytes, num_warps and profiled_warps (the warps that record, when not
    all do) describe it, as mlir-instrument's metadata.json does. The buffer is taken to be that of
    the calling thread's latest kernel launch (for a trace session's timeline): call this before
    the thread launches another kernel. Returns False when no session records; raises ValueError
    when the shim refuses the buffer, with its reason."""
    lib = _shim.library()
    if lib is None:
        return False
    names = (ctypes.c_char_p * max(len(scope_names), 1))(*[n.encode() for n in scope_names])
    data = bytes(buffer)
    warps = (ctypes.c_uint32 * max(len(profiled_warps), 1))(*profiled_warps)
    result = lib.protond_instrumentation_buffer(kernel_name.encode(), device_id, layout, names,
                                                len(scope_names), block_bytes, num_warps, warps,
                                                len(profiled_warps), data, len(data))
    if result == _shim.ERR_INVALID_ARGUMENT:
        raise ValueError(_shim.last_error())
    return result == _shim.OK
