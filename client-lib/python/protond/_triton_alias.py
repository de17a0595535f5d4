"""Makes `import triton.profiler` (and its submodules) give protond.profiler, for `protonctl run
--as-proton`, which loads this through as_proton/sitecustomize.py. The rest of Triton stays the
real one. Where Triton is not installed, `triton` is a stub package that holds only `profiler`,
so that an unmodified Proton script still runs; importing anything else from it fails as if
Triton were missing (ModuleNotFoundError)."""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_ALIASED = "triton.profiler"
_TARGET = "protond.profiler"


class _AliasLoader(importlib.abc.Loader):
    """Loads `triton.profiler[.x]` as the module object of `protond.profiler[.x]` itself, so
    both names share one state (sessions, scope stacks)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed under its own name

    def get_code(self, fullname):  # for `python -m triton.profiler.proton`
        return importlib.util.find_spec(self.target).loader.get_code(self.target)


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module):
        module.__doc__ = ("Stand-in for Triton, which is not installed: protonctl run "
                          "--as-proton provides only triton.profiler (protond.profiler).")


class TritonProfilerAlias(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "triton":
            return None if self._found_elsewhere(fullname, path, target) else \
                importlib.machinery.ModuleSpec("triton", _StubLoader(), is_package=True)
        if fullname != _ALIASED and not fullname.startswith(_ALIASED + "."):
            return None
        name = _TARGET + fullname[len(_ALIASED):]
        found = importlib.util.find_spec(name)
        if found is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: protond.profiler, which stands in for "
                f"triton.profiler, has no {name!r}", name=fullname)
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(name), is_package=found.submodule_search_locations is not None)

    def _found_elsewhere(self, fullname, path, target):
        for finder in sys.meta_path:
            if finder is not self and hasattr(finder, "find_spec") and \
                    finder.find_spec(fullname, path, target) is not None:
                return True
        return False


def install():
    """Puts the alias first on sys.meta_path (once)."""
    if not any(isinstance(finder, TritonProfilerAlias) for finder in sys.meta_path):
        sys.meta_path.insert(0, TritonProfilerAlias())


def chain_sitecustomize(own_directory):
    """Runs the next sitecustomize on sys.path after the one in `own_directory` (the Python
    installation's or the user's), which ours hides by coming first."""
    own = os.path.realpath(own_directory)
    rest = [entry for entry in sys.path if os.path.realpath(entry or ".") != own]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)
