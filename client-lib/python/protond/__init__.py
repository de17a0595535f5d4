"""protond's Python package: `protond.profiler` is a drop-in for Triton's `triton.profiler`
(Proton) that records through protond's shim (libprotond_shim.so, loaded with ctypes) into a
protond daemon. Pure Python: no compiled extension to match against each Python version."""
