"""Sessions as Proton numbers them (0, 1, 2, ... in this process), each backed by a protond
session. Up to 4 may be open at once (the shim's limit); they record side by side, each getting
what happens while it is active."""
import ctypes
import functools
import os
import sys

from .. import _shim
from . import hook as _hook
from . import python_context as _python_context
from .hooks.launch import LaunchHook as _LaunchHook

_CONTEXTS = ("shadow", "python")
_DATA = ("tree", "trace")
_FORMATS = ("", "hatchet", "hatchet_msgpack", "chrome_trace")
# The modes the shim knows (it checks their options); others are Proton's instrumentation modes.
_PC_SAMPLING = ("pcsampling", "pc_sampling")
# Proton's words, from its session manager.
_DIFFERENT_MODE = ("Cannot add a session with the same profiler but a different mode than "
                   "existing sessions")


class _Session:
    def __init__(self, name, daemon_id, hook, context, inherited=False, data="tree", mode=""):
        self.name = name
        self.daemon_id = daemon_id
        self.hook = hook
        self.context = context
        self.data = data  # "trace": the daemon keeps every event, for a Chrome trace
        self.mode = mode  # as start() was given it, in text
        self.inherited = inherited  # started outside Python (protonctl run): paused, not stopped


_sessions = {}  # Proton id -> _Session, while not finalized
_next_id = 0
_warned = False
_off = False  # the last start() returned None: calls naming a session then do nothing
_command_line = False  # set by the launcher (proton.py) once it has started session 0
_inherited_taken = False


def is_profiling():
    """Whether a session is open in this process (scopes are then tracked and recorded)."""
    return bool(_sessions)


def _disabled():
    for variable in ("TRITON_PROTON_DISABLE", "PROTOND_DISABLE"):
        if os.environ.get(variable, "").lower() in ("1", "true", "on", "yes"):
            return True
    return False


def _warn(reason):
    global _warned
    if not _warned:
        print(f"protond.profiler: profiling is off: {reason}", file=sys.stderr)
        _warned = True


def _mode_text(mode):
    """Proton's mode as text, as Proton hands it on: "" for None, str() of a mode object."""
    return "" if mode is None else str(mode)


def _check_arguments(context, data, backend, mode, hook):
    if context not in _CONTEXTS:
        raise ValueError(f"Unknown context: {context!r} (known: {', '.join(_CONTEXTS)})")
    if data not in _DATA:
        raise ValueError(f"Unknown data: {data!r} (known: {', '.join(_DATA)})")
    if hook is not None and not (hook == "triton" or not isinstance(hook, str)):
        raise ValueError(f"Unknown hook: {hook!r} (known: None, 'triton', or a hook object)")
    mode_text = _mode_text(mode)
    unsupported = [
        (hook is not None and hook != "triton" and not isinstance(hook, _LaunchHook),
         "hook objects other than LaunchHook"),
        (backend not in (None, "cupti"), f"backend={backend!r}"),
        (mode_text and mode_text.split(":")[0] not in _PC_SAMPLING, f"mode={mode_text!r}"),
    ]
    for not_yet, what in unsupported:
        if not_yet:
            raise NotImplementedError(f"protond.profiler does not support {what} yet")


def set_command_line():
    """Called by the launcher (proton.py) once it has started session 0: from then on start()
    returns None and only session 0 may be named."""
    global _command_line
    _command_line = True


def _refuse_under_launcher(session_id, done):
    # Proton's own check, None included: under its launcher only session 0 may be named.
    if _command_line and session_id != 0:
        raise ValueError(f"Only one session can be {done} when running from the command line.")


def _take_inherited_session(lib):
    """The session `protonctl run` started for this process (PROTOND_SESSION), while it is open,
    for the first start() only; else 0. A session pushed by `protonctl start --pid` is not one:
    start() then opens its own beside it."""
    global _inherited_taken
    if _inherited_taken:
        return 0
    _inherited_taken = True
    try:
        session = int(os.environ.get("PROTOND_SESSION", "0"))
    except ValueError:
        return 0
    # Resuming it is how the shim says whether it is this process's (and paused or recording).
    return session if session and lib.protond_session_resume(session) == _shim.OK else 0


def _check_same_context(context):
    """Sessions open together share the shim's one context provider, so they share `context`."""
    for session_id, session in _sessions.items():
        if session.context != context:
            raise NotImplementedError(
                f"protond.profiler: sessions open at the same time must use the same context; "
                f"session {session_id} ({session.name}) uses context={session.context!r}, not "
                f"{context!r}")


def _check_same_mode(mode):
    """As in Proton, sessions open together share one mode (the text they were started with)."""
    for session_id, session in _sessions.items():
        if session.mode != mode:
            raise ValueError(f"{_DIFFERENT_MODE}: session {session_id} ({session.name}) uses "
                             f"mode={session.mode!r}, not {mode!r}")


def _note_inherited_mode(name, mode):
    """The session protonctl run started records in protonctl's mode (--mode): say so when the
    script asks for a mode and protonctl gave none, which that session cannot take on."""
    if mode and not os.environ.get("PROTOND_SESSION_MODE"):
        print(f"protond.profiler: session {name!r} is the one protonctl run started, which has "
              f"no mode: mode={mode!r} is not applied (protonctl run --mode sets it)",
              file=sys.stderr)


def _session(session_id):
    if session_id not in _sessions:
        raise RuntimeError(f"Session has not been initialized: {session_id}")
    return _sessions[session_id]


def _chosen(session_id):
    if session_id is None:
        return list(_sessions)
    # As with Proton disabled: the id start() gave (None) or any other names nothing to act on.
    return [] if _off and session_id not in _sessions else [session_id]


def _nothing_started():
    """What start() returns when profiling is off: None, as Proton does."""
    global _off
    _off = not _sessions
    return None


def start(name=None, *, context="shadow", data="tree", backend=None, mode=None, hook=None):
    """Starts a session whose finalize() writes `<name>.hatchet` (default name "proton") and
    returns its id, or None when profiling is disabled, protond cannot be reached, or the
    program runs under the launcher (which has started session 0 itself). Starting again with
    the name of an open session reactivates it and returns its id. Under `protonctl run` the
    first session is the one protonctl started for the process."""
    global _next_id, _off
    if _command_line:
        return None
    if _disabled():
        return _nothing_started()
    _check_arguments(context, data, backend, mode, hook)
    mode = _mode_text(mode)
    name = name or "proton"
    for session_id, session in _sessions.items():
        if session.name == name:
            activate(session_id)
            return session_id
    _check_same_context(context)
    _check_same_mode(mode)
    lib = _shim.library()
    if lib is None:
        _warn(_shim.load_error())
        return _nothing_started()
    inherited = _take_inherited_session(lib)  # resumed: paused until now under --as-proton
    daemon_id = ctypes.c_uint64(inherited)
    if inherited:
        _note_inherited_mode(name, mode)
    # A name from bytes that were not UTF-8 (os.fsdecode's U+DCxx) goes as those bytes, for the
    # shim to refuse by name, rather than raising here and ending the program.
    result = _shim.OK if inherited else lib.protond_session_start_with_mode(
        name.encode("utf-8", "surrogateescape"), data.encode(), mode.encode(),
        ctypes.byref(daemon_id))
    if result == _shim.ERR_INVALID_ARGUMENT:  # name and data are fine (above): the mode's options
        raise ValueError(_shim.last_error())
    if result != _shim.OK:
        if _sessions:  # the others go on recording: say which one is missing, every time
            print(f"protond.profiler: session {name!r} was not started: {_shim.last_error()}",
                  file=sys.stderr)
        else:
            _warn(_shim.last_error())
        return _nothing_started()
    _off = False
    session_id = _next_id
    _next_id += 1
    _sessions[session_id] = _Session(name, daemon_id.value, hook, context,
                                     inherited=bool(inherited), data=data, mode=mode)
    if hook == "triton" or isinstance(hook, _LaunchHook):  # the process's one LaunchHook
        _hook.install()
    if context == "python":
        _python_context.install()
    return session_id


def activate(session=None):
    """Records again into `session` (None: every open session) after deactivate()."""
    _refuse_under_launcher(session, "activated")
    for session_id in _chosen(session):
        _shim.library().protond_session_resume(_session(session_id).daemon_id)


def deactivate(session=None, flushing=False):
    """Stops recording into `session` (None: every open session) until activate(); the session
    stays open. With flushing, what was recorded so far is stored at once."""
    _refuse_under_launcher(session, "deactivated")
    for session_id in _chosen(session):
        lib = _shim.library()
        lib.protond_session_pause(_session(session_id).daemon_id)
        if flushing:
            lib.protond_flush()


def _output_format(session_id, session, output_format):
    """The format finalize() writes for `session`: as Proton, a trace session's default is
    chrome_trace, a tree session's hatchet; a Chrome trace needs a trace session."""
    if output_format == "":
        return "chrome_trace" if session.data == "trace" else "hatchet"
    if output_format == "chrome_trace" and session.data != "trace":
        raise ValueError(
            f'output_format="chrome_trace" needs a session started with data="trace"; session '
            f"{session_id} ({session.name}) keeps only its call tree: write \"hatchet\"")
    return output_format


def export(session_id, output_format, path):
    """Writes open session `session_id`'s profile to `path` in `output_format` ("hatchet",
    "hatchet_msgpack" or "chrome_trace") without ending it, after what this process recorded so
    far is stored; for proton.data. False (nothing written) when profiling is off; RuntimeError
    with the daemon's reason when it could not be written."""
    if _off and session_id not in _sessions:
        return False
    session = _session(session_id)
    if _shim.library().protond_session_export(session.daemon_id, output_format.encode(),
                                              os.fsencode(path)) != _shim.OK:
        raise RuntimeError(f"protond.profiler: the profile of session {session_id} "
                           f"({session.name}) could not be read: {_shim.last_error()}")
    return True


def finalize(session=None, output_format=""):
    """Ends `session` (None: every open session) and writes its `<name>.hatchet` file, or
    `<name>.chrome_trace` for a session started with data="trace", or `<name>.hatchet_msgpack`
    (the tree in MessagePack) when asked."""
    if output_format not in _FORMATS:
        raise RuntimeError(f"Unknown output format: {output_format}")  # Proton's words
    if session is not None:
        _refuse_under_launcher(session, "finalized")
    chosen = _chosen(session)
    formats = {session_id: _output_format(session_id, _session(session_id), output_format)
               for session_id in chosen}  # checked for all before any session ends
    for session_id in chosen:
        current = _session(session_id)
        del _sessions[session_id]
        if current.hook and not any(other.hook for other in _sessions.values()):
            _hook.uninstall()
        if current.context == "python" and \
                not any(other.context == "python" for other in _sessions.values()):
            _python_context.uninstall()
        lib = _shim.library()
        path = os.path.abspath(f"{current.name}.{formats[session_id]}")
        # The session protonctl started lives on for the rest of the process (and its children).
        end = lib.protond_session_pause if current.inherited else lib.protond_session_stop
        if end(current.daemon_id) != _shim.OK or \
                lib.protond_session_export(current.daemon_id, formats[session_id].encode(),
                                           path.encode()) != _shim.OK:
            print(f"protond.profiler: {path} was not written: {_shim.last_error()}",
                  file=sys.stderr)


def profile(func=None, *, name=None, context="shadow", data="tree", backend=None, mode=None,
            hook=None):
    """Decorator: starts a session before each call of `func` and deactivates it after; the
    caller finalizes."""
    if func is None:
        return functools.partial(profile, name=name, context=context, data=data, backend=backend,
                                 mode=mode, hook=hook)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        session_id = start(name=name, context=context, data=data, backend=backend, mode=mode,
                           hook=hook)
        try:
            return func(*args, **kwargs)
        finally:
            if session_id is not None:
                deactivate(session_id)

    return wrapper
