"""What the GPU scripts share (bench/gpu_overhead.py, tests/gpu/compare_with_proton.py,
bench/research/callback_cost.py): a private protond from a bundle, and the Triton kernel
their programs launch."""
import contextlib
import os
import subprocess
import time

# Source text for the profiled programs (they run in their own processes).
TRITON_ADD_ONE = r'''
import triton, triton.language as tl

@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)
'''


def write_program(work, text):
    """Writes a program (with add_one defined first) into `work` and returns its path."""
    path = os.path.join(work, "program.py")
    with open(path, "w") as f:
        f.write(TRITON_ADD_ONE + text)
    return path


@contextlib.contextmanager
def protond(bundle, work):
    """A protond serving work/protond.sock while the block runs; yields the socket path."""
    socket = os.path.join(work, "protond.sock")
    daemon = subprocess.Popen([f"{bundle}/bin/protond", "--socket", socket, "--state-dir",
                               f"{work}/state"], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(socket):
                break
            time.sleep(0.05)
        yield socket
    finally:
        daemon.terminate()
        daemon.wait()


def shim_env(bundle, socket):
    """Environment for a program that records into `socket` with the shim preloaded."""
    shim = f"{bundle}/bin/libprotond_shim.so"
    return dict(os.environ, LD_PRELOAD=shim, PROTOND_SHIM=shim, PROTOND_SOCKET=socket)
