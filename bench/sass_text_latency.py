#!/usr/bin/env python3
"""How long the first `protonctl tree SESSION -f sass` takes on a Triton program of many cubins,
against reading the same cubins with nvdisasm one after the other (what a daemon that ran one
nvdisasm at a time would spend at least).

A Triton kernel is built with CUBINS values of a constexpr (one cubin each) and run under
protond.profiler's mode="pcsampling". Then, ROUNDS times: a fresh protond on the same store (so
nothing is kept in memory) answers `tree -f sass` twice (cold: nvdisasm runs; warm: kept), and
the stored cubins are read by nvdisasm in turn. Prints medians and [min-max] per measurement.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    bench/sass_text_latency.py BUNDLE_DIR [ROUNDS] [CUBINS]
"""
import glob
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_common import protond, write_program  # noqa: E402

PROGRAM = r'''
import sys, torch
import protond.profiler as proton

@triton.jit
def scale(x_ptr, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    at = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + at)
    for _ in range(64):
        x = x * FACTOR + 1.0
    tl.store(x_ptr + at, x)

x = torch.zeros(1 << 24, device="cuda")
proton.start("cubins", mode="pcsampling")
for factor in range(int(sys.argv[1])):
    for _ in range(50):
        scale[(x.numel() // 1024,)](x, FACTOR=factor + 2, BLOCK=1024)
torch.cuda.synchronize()
proton.finalize()
'''


def timed(command):
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{command} failed: {done.stderr}")
    return elapsed, done.stdout


def summary(values):
    return f"{statistics.median(values):.3f} s [{min(values):.3f}-{max(values):.3f}]"


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    cubins = sys.argv[3] if len(sys.argv) > 3 else "8"
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        subprocess.run([sys.executable, program, cubins], cwd=work, env=env, check=True,
                       capture_output=True)
    store = glob.glob(f"{work}/state/*.db")[0]
    stored = sqlite3.connect(store).execute("SELECT crc, bytes FROM cubins").fetchall()
    paths = []
    for crc, data in stored:
        paths.append(f"{work}/{crc & 0xffffffffffffffff:x}.cubin")
        with open(paths[-1], "wb") as f:
            f.write(data)
    nvdisasm = os.environ.get("PROTOND_NVDISASM", "/usr/local/cuda/bin/nvdisasm")
    cold, warm, serial = [], [], []
    for _ in range(rounds):
        with protond(bundle, work) as socket:
            tree = [f"{bundle}/bin/protonctl", "--socket", socket, "tree", "1", "-f", "sass"]
            elapsed, text = timed(tree)
            cold.append(elapsed)
            warm.append(timed(tree)[0])
        start = time.perf_counter()
        for path in paths:
            timed([nvdisasm, "-c", path])
        serial.append(time.perf_counter() - start)
    named = sum(1 for line in text.splitlines() if "─ 0x" in line and "  " in line.split("─ ")[-1])
    print(f"{len(stored)} cubins stored, {named} instructions with text; notes: "
          f"{[line for line in text.splitlines() if line.startswith('note:')]}")
    print(f"tree -f sass, first query (nvdisasm runs): {summary(cold)}")
    print(f"tree -f sass, again (kept):                {summary(warm)}")
    print(f"nvdisasm on each cubin, one at a time:     {summary(serial)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
