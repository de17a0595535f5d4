#!/usr/bin/env python3
"""What profiling costs a GPU program: no profiler, bare CUPTI (activity records only, no
callbacks: the floor any CUPTI tracer pays), protond, Proton and torch.profiler, side by side on
one GPU, in interleaved rounds (each round runs every profiler once, in a rotated order).

Workloads: 20k tiny torch ops (add_ on 1k floats), 5k small Triton kernel launches, 100 fp16
4096^3 matmuls; and what stopping the profiler costs the program (protond: session stop; Proton:
finalize; torch.profiler: leaving the context).

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    bench/gpu_overhead.py BUNDLE_DIR [ROUNDS]
Prints medians with min-max spread, and ratios of medians against no profiler and bare CUPTI.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from gpu_common import protond, shim_env, write_program

PROFILERS = ["none", "cupti", "protond", "proton", "torch"]
WORKLOADS = ["add_", "triton", "matmul"]

PROGRAM = r'''
import ctypes, json, os, statistics, sys, time
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

    def _request(self, buffer, size, max_records):
        block = ctypes.create_string_buffer(8 << 20)
        self.buffers[ctypes.addressof(block)] = block
        buffer[0] = ctypes.addressof(block)
        size[0] = 8 << 20
        max_records[0] = 0

    def _complete(self, context, stream, buffer, size, valid):
        self.buffers.pop(buffer, None)

    def start(self):
        assert self.lib.cuptiActivityRegisterCallbacks(self.request, self.complete) == 0
        for kind in self.KINDS:
            assert self.lib.cuptiActivityEnable(kind) == 0

    def stop(self):
        for kind in self.KINDS:
            self.lib.cuptiActivityDisable(kind)
        self.lib.cuptiActivityFlushAll(1)

def start(mode):
    if mode == "cupti":
        tracer = BareCupti(os.environ["BENCH_CUPTI"])
        tracer.start()
        return tracer.stop
    if mode == "protond":
        shim = ctypes.CDLL(os.environ["PROTOND_SHIM"])
        session = ctypes.c_uint64(0)
        assert shim.protond_session_start(b"bench", ctypes.byref(session)) == 0
        return lambda: shim.protond_session_stop(session)
    if mode == "proton":
        import triton.profiler as proton
        proton.start("bench")
        return proton.finalize
    if mode == "torch":
        profile = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                     torch.profiler.ProfilerActivity.CUDA])
        profile.__enter__()
        return lambda: profile.__exit__(None, None, None)
    return lambda: None

mode = sys.argv[1]
for workload in WORKLOADS.values():  # compile, load cuBLAS, settle clocks
    workload()
torch.cuda.synchronize()
stop = start(mode)
results = {}
for name, workload in WORKLOADS.items():
    workload()  # the first run under the profiler pays one-time costs
    torch.cuda.synchronize()
    seconds = []
    for _ in range(3):
        begin = time.perf_counter()
        workload()
        torch.cuda.synchronize()
        seconds.append(time.perf_counter() - begin)
    results[name] = statistics.median(seconds)
begin = time.perf_counter()
stop()
results["stop"] = time.perf_counter() - begin
print("RESULT " + json.dumps(results))
'''


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    samples = {p: {w: [] for w in WORKLOADS + ["stop"]} for p in PROFILERS}
    with protond(bundle, work) as socket:
        for round_index in range(rounds):
            order = PROFILERS[round_index % len(PROFILERS):] + \
                PROFILERS[:round_index % len(PROFILERS)]
            for profiler in order:
                env = shim_env(bundle, socket) if profiler == "protond" else dict(os.environ)
                env["BENCH_CUPTI"] = f"{bundle}/lib/libcupti.so.13"
                run = subprocess.run([sys.executable, program, profiler], env=env, cwd=work,
                                     capture_output=True, text=True)
                lines = [l for l in run.stdout.splitlines() if l.startswith("RESULT ")]
                if run.returncode != 0 or not lines:
                    print(f"{profiler} failed:\n{run.stderr[-2000:]}")
                    continue
                for key, value in json.loads(lines[0][7:]).items():
                    samples[profiler][key].append(value)

    print(f"{rounds} rounds; each sample is the median of 3 runs; median [min-max] in ms")
    print(f"{'':10}" + "".join(f"{w:>26}" for w in WORKLOADS + ["stop"]))
    for profiler in PROFILERS:
        row = ""
        for w in WORKLOADS + ["stop"]:
            s = samples[profiler][w]
            row += (f"{statistics.median(s) * 1e3:10.2f} [{min(s) * 1e3:6.1f}-{max(s) * 1e3:6.1f}]"
                    if s else f"{'-':>26}")
        print(f"{profiler:10}{row}")
    for base in ["none", "cupti"]:
        print(f"ratio of medians to {base}:")
        for profiler in PROFILERS:
            row = ""
            for w in WORKLOADS:
                s, b = samples[profiler][w], samples[base][w]
                row += f"{statistics.median(s) / statistics.median(b):26.3f}" if s and b else \
                    f"{'-':>26}"
            print(f"{profiler:10}{row}")


if __name__ == "__main__":
    main()
