"""proton.hooks: the hook objects `start(hook=...)` takes, as in Proton. protond has Proton's
launch hook (`LaunchHook`, what hook="triton" installs); other hook objects are not supported
yet."""
from .hook import Hook
from .launch import LaunchHook

__all__ = ["Hook", "LaunchHook"]
