"""A drop-in for Triton's `triton.profiler` (Proton): `import protond.profiler as proton` and keep
writing `proton.start()`, `proton.scope(...)`, `proton.finalize()`. The records go through
protond's shim into the daemon, which builds the tree; finalize() writes Proton's .hatchet file
from it. What is not supported yet raises NotImplementedError (docs/python.md)."""
from . import context, data, hooks, mode
from .profile import activate, deactivate, finalize, profile, start
from .scope import cpu_timed_scope, enter_scope, exit_scope, scope
from .state import enter_state, exit_state, state

__all__ = [
    "activate", "context", "cpu_timed_scope", "data", "deactivate", "enter_scope", "enter_state",
    "exit_scope", "exit_state", "finalize", "hooks", "mode", "profile", "scope", "start", "state",
]
