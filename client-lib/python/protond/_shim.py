"""Loads libprotond_shim.so and declares its C ABI (shim/include/protond/shim.h) for ctypes.

The shim is found through PROTOND_SHIM (a path), else in the bundle layout, where this package
sits in <bundle>/python/protond and the shim in <bundle>/bin. Nothing here raises: a shim that
cannot be loaded is reported as a reason, and the profiler then does nothing."""
import ctypes
import os

OK = 0
INACTIVE = 1
DROPPED = 2
ERR_INVALID_ARGUMENT = 3
ERR_METRIC_TYPE = 4
ERR_SCOPE_MISMATCH = 5
ERR_NO_SCOPE = 6
ERR_UNAVAILABLE = 7

ABI_VERSION = 7  # version 7: protond_instrumentation_buffer

# protond_context_provider: the context of GPU work launched on the calling thread.
CONTEXT_PROVIDER = ctypes.CFUNCTYPE(ctypes.c_uint32)
NO_CONTEXT = 0xFFFFFFFF  # PROTOND_NO_CONTEXT

_SIGNATURES = {
    "protond_abi_version": ([], ctypes.c_int),
    "protond_scope_enter": ([ctypes.c_char_p], ctypes.c_int),
    "protond_scope_exit": ([ctypes.c_char_p], ctypes.c_int),
    "protond_metric_int64": ([ctypes.c_char_p, ctypes.c_int64], ctypes.c_int),
    "protond_metric_double": ([ctypes.c_char_p, ctypes.c_double], ctypes.c_int),
    "protond_state_enter": ([ctypes.c_char_p], ctypes.c_int),
    "protond_state_exit": ([], ctypes.c_int),
    "protond_launch_enter": ([ctypes.c_char_p], ctypes.c_int),
    "protond_launch_exit": ([], ctypes.c_int),
    "protond_set_context_provider": ([CONTEXT_PROVIDER], ctypes.c_int),
    "protond_context_intern": ([ctypes.c_uint32, ctypes.c_char_p], ctypes.c_uint32),
    "protond_session_start": ([ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)], ctypes.c_int),
    "protond_session_start_with_data": (
        [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)], ctypes.c_int),
    "protond_session_start_with_mode": (
        [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)],
        ctypes.c_int),
    "protond_session_stop": ([ctypes.c_uint64], ctypes.c_int),
    "protond_session_pause": ([ctypes.c_uint64], ctypes.c_int),
    "protond_session_resume": ([ctypes.c_uint64], ctypes.c_int),
    "protond_session_export": ([ctypes.c_uint64, ctypes.c_char_p, ctypes.c_char_p], ctypes.c_int),
    "protond_flush": ([], ctypes.c_int),
    "protond_current_session": ([], ctypes.c_uint64),
    "protond_last_error": ([], ctypes.c_char_p),
    "protond_instrumentation_buffer": (
        [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(ctypes.c_char_p),
         ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32),
         ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint64],
        ctypes.c_int),
}

_library = None
_load_error = None


def _candidates():
    explicit = os.environ.get("PROTOND_SHIM")
    if explicit:
        return [explicit]
    package = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(package, "..", "..", "bin", "libprotond_shim.so")]


def library():
    """The loaded shim, or None (then load_error() says why)."""
    global _library, _load_error
    if _library is not None or _load_error is not None:
        return _library
    reasons = []
    for path in _candidates():
        try:
            candidate = ctypes.CDLL(path)
        except OSError as error:
            reasons.append(f"cannot load {path}: {error}")
            continue
        for name, (argtypes, restype) in _SIGNATURES.items():
            function = getattr(candidate, name, None)
            if function is None:
                break
            function.argtypes, function.restype = argtypes, restype
        else:
            if candidate.protond_abi_version() >= ABI_VERSION:
                _library = candidate
                return _library
        reasons.append(f"{path} is an older protond shim (ABI version {ABI_VERSION} or later "
                       "is needed)")
    _load_error = "; ".join(reasons) or "no protond shim found (set PROTOND_SHIM)"
    return None


def load_error():
    return _load_error


def last_error():
    lib = library()
    return lib.protond_last_error().decode(errors="replace") if lib is not None else _load_error
