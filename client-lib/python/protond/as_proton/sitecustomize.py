"""Put first on PYTHONPATH by `protonctl run --as-proton`: from here on `import triton.profiler`
gives protond.profiler (protond/_triton_alias.py). The sitecustomize this one hides (the
installation's or the user's) runs next."""
import os

from protond import _triton_alias

_triton_alias.install()
_triton_alias.chain_sitecustomize(os.path.dirname(os.path.abspath(__file__)))
