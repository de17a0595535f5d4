#!/usr/bin/env python3
"""What PC sampling costs a GPU program: protond's pcsampling mode (CUPTI's continuous sampling,
kernels run concurrently) and Proton's (serialized: it synchronizes around every kernel), each
against no profiler on one GPU, with protond's plain tracing for reference. The issue's goal:
protond's pcsampling at most 3x of no profiler; Proton's is about 20x.

Measured as bench/gpu_overhead.py measures (gpu_common.PAIRED_ROUNDS): every round times each
workload with the profiler off and on, in alternating order, inside one process; the result is the
median over rounds of on / off, with its range.

Workloads: 10000 launches of a small Triton kernel (add_one on 1k floats: launch-bound, where a
per-launch cost shows), 200 launches of a memory-bound Triton kernel (a strided read over 256 MiB),
and 50 fp16 4096^3 matmuls (long kernels). Each round starts and stops the profiler, so a
profiler's fixed cost per session (protond: enabling and disabling CUPTI's sampling, about 0.2 s)
weighs on short workloads; "stop (ms)" shows part of it.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    bench/pc_sampling_overhead.py BUNDLE_DIR [ROUNDS] [PROCESSES] [INTERVAL]
INTERVAL (cycles) is passed to both profilers' pcsampling mode; default: each one's own default.
"""
import os
import sys
import tempfile

from gpu_common import PAIRED_ROUNDS, collect_paired, print_paired, protond, shim_env, \
    write_program

PROFILERS = ["protond", "protond_pcs", "proton_pcs"]
WORKLOADS = ["triton", "memory", "matmul"]

PROGRAM = r'''
import ctypes, os, sys
import torch
import triton, triton.language as tl

@triton.jit
def strided_sum(x_ptr, out_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, 64):
        acc += tl.load(x_ptr + (offsets * STRIDE + i * 4099) % n)
    tl.store(out_ptr + offsets, acc)

x = torch.zeros(1024, device="cuda")
big = torch.ones(1 << 26, device="cuda")
out = torch.empty(1 << 16, device="cuda")
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)

def triton_launches():
    for _ in range(10000):
        add_one[(1,)](x, 1024, BLOCK=1024)

def memory_bound():
    for _ in range(200):
        strided_sum[(64,)](big, out, 1 << 26, STRIDE=97, BLOCK=1024)

def matmuls():
    for _ in range(50):
        a @ a

WORKLOADS = {"triton": triton_launches, "memory": memory_bound, "matmul": matmuls}
INTERVAL = int(os.environ.get("BENCH_INTERVAL", "0"))

def profiler(name):
    """(start, stop) of the profiler named `name`."""
    if name.startswith("protond"):
        shim = ctypes.CDLL(os.environ["PROTOND_SHIM"])
        session = ctypes.c_uint64(0)
        mode = b""
        if name == "protond_pcs":
            mode = b"pcsampling" + (b":interval=%d" % INTERVAL if INTERVAL else b"")
        def start():
            rc = shim.protond_session_start_with_mode(b"bench", b"tree", mode,
                                                      ctypes.byref(session))
            assert rc == 0, rc
        def stop():
            assert shim.protond_session_stop(session) == 0
        return start, stop
    if name == "proton_pcs":
        import triton.profiler as proton
        mode = proton.mode.PCSampling(interval=INTERVAL) if INTERVAL else "pcsampling"
        return (lambda: proton.start("bench", mode=mode)), proton.finalize
    raise ValueError(name)

name, rounds = sys.argv[1], int(sys.argv[2])
run_paired_rounds(*profiler(name), WORKLOADS, rounds)
'''


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    processes = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    interval = sys.argv[4] if len(sys.argv) > 4 else "0"
    work = tempfile.mkdtemp()
    program = write_program(work, PAIRED_ROUNDS + PROGRAM)
    with protond(bundle, work) as socket:
        def env_for(name):
            env = shim_env(bundle, socket) if name.startswith("protond") else dict(os.environ)
            env["BENCH_INTERVAL"] = interval
            return env

        ratios, stops = collect_paired(program, PROFILERS, WORKLOADS, rounds, processes, env_for,
                                       work)
    print(f"{processes} processes per profiler x {rounds} rounds, interval "
          f"{interval if interval != '0' else 'default'}; on / off time in the same round: "
          "median [min-max]")
    print_paired(PROFILERS, WORKLOADS, ratios, stops, "stop")


if __name__ == "__main__":
    main()
