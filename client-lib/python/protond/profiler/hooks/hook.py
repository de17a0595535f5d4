"""Proton's base class of hooks (triton.profiler.hooks.hook.Hook): what a hook object implements.
protond runs only its own LaunchHook; a Proton script may still subclass this."""


class Hook:
    priority = 0

    def init_handle(self, module, function, name, metadata_group, hash):
        pass

    def activate(self):
        pass

    def deactivate(self):
        pass

    def enter(self, metadata):
        pass

    def exit(self, metadata):
        pass
