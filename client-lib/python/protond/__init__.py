"""protond's Python package: `protond.profiler` is a drop-in for Triton's `triton.profiler`
(Proton) that records through protond's shim (libprotond_shim.so, loaded with ctypes) into a
protond daemon. Pure Python: no compiled extension to match against each Python version."""

# project(protond VERSION ...) of the top CMakeLists.txt, which protond --version and protonctl
# --version print. Written here too because the package also runs where nothing is built for it
# (the source tree, a bundle's copy); pyproject.toml reads it from here, and
# tests/test_packaging.py fails when it differs from CMake's.
__version__ = "0.1.0"
