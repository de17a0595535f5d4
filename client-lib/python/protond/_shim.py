"""Loads libprotond_shim.so and declares its C ABI (shim/include/protond/shim.h) for ctypes.

The shim is found through PROTOND_SHIM (a path); else, for this package imported from a source
checkout (<repo>/client-lib/python/protond), in that checkout's build tree, <repo>/build/bin;
else in the bundle layout, where this package sits in <bundle>/python/protond and the shim in
<bundle>/bin (the build tree's python/ link to client-lib/python is laid out so too). Nothing
here raises: a shim that cannot be loaded is reported as a one-line reason, and the profiler then
does nothing."""
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

ABI_VERSION = 10  # version 10: protond_metric_int64_vector and protond_metric_double_vector

# protond_context_provider: only NULL is passed from here (back to the scope stack).
CONTEXT_PROVIDER = ctypes.CFUNCTYPE(ctypes.c_uint32)

_SIGNATURES = {
    "protond_abi_version": ([], ctypes.c_int),
    "protond_scope_enter": ([ctypes.c_char_p], ctypes.c_int),
    "protond_scope_exit": ([ctypes.c_char_p], ctypes.c_int),
    "protond_metric_int64": ([ctypes.c_char_p, ctypes.c_int64], ctypes.c_int),
    "protond_metric_double": ([ctypes.c_char_p, ctypes.c_double], ctypes.c_int),
    "protond_metric_int64_vector": (
        [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t], ctypes.c_int),
    "protond_metric_double_vector": (
        [ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ctypes.c_size_t], ctypes.c_int),
    "protond_state_enter": ([ctypes.c_char_p], ctypes.c_int),
    "protond_state_exit": ([], ctypes.c_int),
    "protond_launch_enter": ([ctypes.c_char_p], ctypes.c_int),
    "protond_launch_exit": ([], ctypes.c_int),
    "protond_set_context_provider": ([CONTEXT_PROVIDER], ctypes.c_int),
    "protond_use_python_context": ([ctypes.c_char_p], ctypes.c_int),
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

SHIM_FILE = "libprotond_shim.so"

_library = None
_load_error = None


def _default_path():
    """(path, where that is) of the shim when PROTOND_SHIM is not set."""
    # abspath, not realpath: imported through a build tree's python/ link, this is that build
    # tree's bundle layout, whatever its name (build-asan/python finds build-asan/bin).
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    client_lib, python_folder = os.path.split(package_parent)
    checkout, client_lib_folder = os.path.split(client_lib)
    if (client_lib_folder, python_folder) == ("client-lib", "python"):
        return (os.path.join(checkout, "build", "bin", SHIM_FILE),
                "this source checkout's build tree")
    return os.path.join(os.path.dirname(package_parent), "bin", SHIM_FILE), "as in a bundle"


def _load(path, origin):
    """(the shim at `path` with its signatures declared, None), or (None, why not)."""
    try:
        candidate = ctypes.CDLL(path)
    except OSError as error:
        return None, f"cannot load {path} ({origin}): {error}"
    for name, (argtypes, restype) in _SIGNATURES.items():
        function = getattr(candidate, name, None)
        if function is None:
            break
        function.argtypes, function.restype = argtypes, restype
    else:
        if candidate.protond_abi_version() >= ABI_VERSION:
            return candidate, None
    return None, (f"{path} ({origin}) is an older protond shim (ABI version {ABI_VERSION} or "
                  "later is needed)")


def library():
    """The loaded shim, or None (then load_error() says why, in one line)."""
    global _library, _load_error
    if _library is not None or _load_error is not None:
        return _library
    explicit = os.environ.get("PROTOND_SHIM")
    if explicit:  # a path, or a bare name for the dynamic loader's search: dlopen says what failed
        _library, _load_error = _load(explicit, "PROTOND_SHIM")
        return _library
    path, origin = _default_path()
    if os.path.exists(path):
        _library, _load_error = _load(path, origin)
    else:
        _load_error = f"no protond shim at {path} ({origin})"
    if _load_error is not None:
        _load_error += f"; set PROTOND_SHIM to the path of {SHIM_FILE}"
    return _library


def load_error():
    return _load_error


def last_error():
    lib = library()
    return lib.protond_last_error().decode(errors="replace") if lib is not None else _load_error
