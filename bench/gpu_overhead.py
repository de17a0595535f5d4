#!/usr/bin/env python3
"""What profiling costs a GPU program: bare CUPTI (activity records only, no callbacks: the floor
any CUPTI tracer pays), protond, Proton and torch.profiler, each against no profiler on one GPU.

Process-to-process noise on a shared machine is larger than the effects measured here (the same
loop with no profiler ran at 7.1 to 9.7 us per launch in four processes of one run), so each
profiler is measured inside its own processes: every round times the workloads once with the
profiler off and once with it on (order alternating), and the result is the median over rounds of
on / off. A profiler is started and stopped once before the rounds, so that one-time costs (CUPTI's
first enable) stay out. "x floor" divides a profiler's ratio by bare CUPTI's.

Workloads: 20k tiny torch ops (add_ on 1k floats), 5k small Triton kernel launches, 100 fp16
4096^3 matmuls; and what stopping costs the program (protond: session stop; Proton: finalize;
torch.profiler: leaving the context).

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    bench/gpu_overhead.py BUNDLE_DIR [ROUNDS] [PROCESSES] [--profilers A,B] [--guard]

--guard (tests/device/perf_guard.sh) exits 1 when protond's stop costs the program more than
GUARD_STOP_MS at the median, or protond's median on / off exceeds bare CUPTI's by more than
GUARD_OVER_FLOOR on any workload.
"""
import argparse
import os
import statistics
import sys
import tempfile

from gpu_common import (PAIRED_ROUNDS, TORCH_PROFILER, collect_paired, print_paired, protond,
                        shim_env, write_program)

PROFILERS = ["cupti", "protond", "proton", "torch"]
WORKLOADS = ["add_", "triton", "matmul"]
GUARD_STOP_MS = 20.0
GUARD_OVER_FLOOR = 1.05

PROGRAM = r'''
import ctypes, os, sys
import torch

x = torch.zeros(1024, device="cuda")
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)

def tiny_ops():
    for _ in range(20000):
        x.add_(1.0)

def triton_launches():
    for _ in range(5000):
        add_one[(1,)](x, 1024, BLOCK=1024)

def matmuls():
    for _ in range(100):
        a @ a

WORKLOADS = {"add_": tiny_ops, "triton": triton_launches, "matmul": matmuls}

class BareCupti:
    """Activity records only (kernels, copies, sets), buffers handed back unread."""
    REQUEST = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p),
                               ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t))
    COMPLETE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p,
                                ctypes.c_size_t, ctypes.c_size_t)
    KINDS = [10, 1, 22, 2]  # CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.buffers = {}
        self.request = self.REQUEST(self._request)
        self.complete = self.COMPLETE(self._complete)
        assert self.lib.cuptiActivityRegisterCallbacks(self.request, self.complete) == 0

    def _request(self, buffer, size, max_records):
        block = ctypes.create_string_buffer(8 << 20)
        self.buffers[ctypes.addressof(block)] = block
        buffer[0] = ctypes.addressof(block)
        size[0] = 8 << 20
        max_records[0] = 0

    def _complete(self, context, stream, buffer, size, valid):
        self.buffers.pop(buffer, None)

    def start(self):
        for kind in self.KINDS:
            assert self.lib.cuptiActivityEnable(kind) == 0

    def stop(self):
        for kind in self.KINDS:
            self.lib.cuptiActivityDisable(kind)
        self.lib.cuptiActivityFlushAll(1)

def profiler(mode):
    """(start, stop) of the profiler named `mode`."""
    if mode == "cupti":
        tracer = BareCupti(os.environ["BENCH_CUPTI"])
        return tracer.start, tracer.stop
    if mode == "protond":
        shim = ctypes.CDLL(os.environ["PROTOND_SHIM"])
        session = ctypes.c_uint64(0)
        def start():
            assert shim.protond_session_start(b"bench", ctypes.byref(session)) == 0
        def stop():
            assert shim.protond_session_stop(session) == 0
        return start, stop
    if mode == "proton":
        import triton.profiler as proton
        return (lambda: proton.start("bench")), proton.finalize
    if mode == "torch":
        return torch_profiler_start, torch_profiler_stop
    raise ValueError(mode)

mode, rounds = sys.argv[1], int(sys.argv[2])
run_paired_rounds(*profiler(mode), WORKLOADS, rounds)
'''


def guard_failures(ratios, stops):
    """What breaks the guard's limits, one line each (none: it holds)."""
    failures = []
    stop_ms = statistics.median(stops["protond"]) * 1e3 if stops["protond"] else float("inf")
    if stop_ms > GUARD_STOP_MS:
        failures.append(f"protond's stop costs the program {stop_ms:.1f} ms at the median "
                        f"(limit {GUARD_STOP_MS:.0f} ms)")
    for w in WORKLOADS:
        if not ratios["protond"][w] or not ratios["cupti"][w]:
            failures.append(f"{w}: no samples (a run failed)")
            continue
        over = statistics.median(ratios["protond"][w]) / statistics.median(ratios["cupti"][w])
        if over > GUARD_OVER_FLOOR:
            failures.append(f"{w}: protond costs {over:.3f}x bare CUPTI "
                            f"(limit {GUARD_OVER_FLOOR:.2f}x)")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default="bundle")
    parser.add_argument("rounds", nargs="?", type=int, default=15)
    parser.add_argument("processes", nargs="?", type=int, default=2)
    parser.add_argument("--profilers", default=",".join(PROFILERS))
    parser.add_argument("--guard", action="store_true")
    args = parser.parse_args()
    names = args.profilers.split(",")
    if args.guard and not {"cupti", "protond"} <= set(names):
        parser.error("--guard compares protond with bare CUPTI: --profilers needs both")
    bundle = os.path.abspath(args.bundle)
    work = tempfile.mkdtemp()
    program = write_program(work, PAIRED_ROUNDS + TORCH_PROFILER + PROGRAM)
    with protond(bundle, work) as socket:
        def env_for(name):
            env = shim_env(bundle, socket) if name == "protond" else dict(os.environ)
            env["BENCH_CUPTI"] = f"{bundle}/lib/libcupti.so.13"
            return env

        ratios, stops = collect_paired(program, names, WORKLOADS, args.rounds, args.processes,
                                       env_for, work)
    print(f"{args.processes} processes per profiler x {args.rounds} rounds; on / off time in the "
          "same round: median [min-max]; x floor = median / bare CUPTI's median")
    print_paired(names, WORKLOADS, ratios, stops, "stop")
    floor = {w: statistics.median(ratios["cupti"][w])
             for w in WORKLOADS if "cupti" in ratios and ratios["cupti"][w]}
    for name in names:
        if name == "cupti":
            continue
        row = "".join(f"{statistics.median(ratios[name][w]) / floor[w]:30.3f}"
                      if ratios[name][w] and w in floor else f"{'-':>30}" for w in WORKLOADS)
        print(f"{name + ' x floor':9}{row}")
    if args.guard:
        failures = guard_failures(ratios, stops)
        for failure in failures:
            print(f"GUARD FAILED: {failure}")
        print("guard: " + ("FAILED" if failures else "passed"))
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
