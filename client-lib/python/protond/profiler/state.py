"""Proton's state: one per thread, named after what the program is doing (entering replaces the
current one), kept by the shim. While no session is open these do nothing."""
import functools

from .. import _shim
from .profile import is_profiling


def enter_state(name):
    if is_profiling():
        _shim.library().protond_state_enter(name.encode())


def exit_state():
    if is_profiling():
        _shim.library().protond_state_exit()


class state:
    """`with state(name):` or `@state(name)`."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        enter_state(self.name)
        return self

    def __exit__(self, *exc_info):
        exit_state()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with state(self.name):
                return func(*args, **kwargs)

        return wrapper
