"""proton.data: a session's profile while it runs, as newer Proton's (after Triton 3.6) `data`
module gives it. `get` returns the tree finalize() would write as `.hatchet` (Proton's JSON tree,
`[root, device_info]`), `get_msgpack` the same in MessagePack (the `.hatchet_msgpack` bytes).
Both come from the daemon, after what this process recorded so far is stored there.

Phases (`advance_phase`, `is_phase_complete`, `clear`, and a `phase` other than 0) are not
supported yet: they raise NotImplementedError (docs/python.md, "Not yet")."""
import json
import os
import tempfile

from . import profile as _profile

_NO_PHASES = ("protond.profiler does not support phases yet (proton.data.{}); a session is one "
              "phase, phase 0")


def _check_phase(phase, call):
    if phase != 0:
        raise NotImplementedError(_NO_PHASES.format(f"{call}(phase={phase!r})"))


def _export(session, output_format):
    """The session's profile in `output_format`, as bytes, or None when profiling is off: written
    by the control library (which fetches the tree from the daemon, as for finalize()) into a
    private file, then read."""
    with tempfile.TemporaryDirectory(prefix="protond-data-") as directory:
        path = os.path.join(directory, f"profile.{output_format}")
        if not _profile.export(session, output_format, path):
            return None
        with open(path, "rb") as f:
            return f.read()


def get(session=0, phase=0):
    """The profile of `session` so far, as Proton's JSON tree (a list: [root, device_info]); None
    for the None that start() returns when profiling is off."""
    if session is None:
        return None
    _profile._refuse_under_launcher(session, "retrieved")
    _check_phase(phase, "get")
    text = _export(session, "hatchet")
    return None if text is None else json.loads(text)


def get_msgpack(session=0, phase=0):
    """The profile of `session` so far, encoded with MessagePack (bytes); None for None."""
    if session is None:
        return None
    _profile._refuse_under_launcher(session, "retrieved")
    _check_phase(phase, "get_msgpack")
    return _export(session, "hatchet_msgpack")


# With profiling off (session None) each answers as Proton's does, so that a program runs
# unprofiled as it would under Proton; otherwise they say that phases are not supported.
def advance_phase(session=0):
    if session is None:
        return None
    raise NotImplementedError(_NO_PHASES.format("advance_phase"))


def is_phase_complete(session=0, phase=0):
    if session is None:
        return False
    raise NotImplementedError(_NO_PHASES.format("is_phase_complete"))


def is_phase_flushed(session=0, phase=0):
    """is_phase_complete's name in earlier releases of newer Proton."""
    if session is None:
        return False
    raise NotImplementedError(_NO_PHASES.format("is_phase_flushed"))


def clear(session=0, phase=0, clear_up_to_phase=False):
    if session is None:
        return None
    raise NotImplementedError(_NO_PHASES.format("clear"))
