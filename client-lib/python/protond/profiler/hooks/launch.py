"""Proton's launch hook object (triton.profiler.hooks.launch.LaunchHook): one per process, which
`start(hook="triton")` and `start(hook=LaunchHook())` both install. `configure(include=...,
exclude=...)` limits it to some kernels: regular expressions matched (re.match, from the start of
the name) against the compiled kernel's name, and again against the name its launch_metadata
gives. A kernel left out by its compiled name does not have its launch_metadata run; either way
a kernel left out has its node named by the driver and no metadata metrics, as without the
hook."""
import re

from .hook import Hook


class LaunchHook(Hook):
    priority = 100
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance._include = cls._instance._exclude = None
        return cls._instance

    def configure(self, *, include=None, exclude=None):
        """Records only kernels whose name matches `include` (when given) and not `exclude`
        (when given); None or "" clears either. A bad pattern raises re.error, as in Proton."""
        self._include = re.compile(include) if include else None
        self._exclude = re.compile(exclude) if exclude else None

    def matches(self, kernel_name):
        """Whether the hook records a kernel of this name (a name of None always matches)."""
        if kernel_name is None:
            return True
        if self._include is not None and self._include.match(kernel_name) is None:
            return False
        return self._exclude is None or self._exclude.match(kernel_name) is None
