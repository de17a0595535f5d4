#!/usr/bin/env python3
"""Kernel time with Triton 3.6's own intra-kernel instrumentation (Proton's
backend="instrumentation", scopes from triton.profiler.language) against the same kernel without
it: the Triton counterpart of bench/instrumentation_overhead.sh, with the same two kernels and
scopes, so that mlir-instrument's ratios can be set beside Proton's.

Kernels (BLOCK = 128 elements per program and num_warps=4: one program is one CTA of 4 warps;
BLOCKS programs; x, y, out of 2^20 floats, all 1.0), compiled with num_stages=1 (no software
pipelining, like the MLIR kernels):
- two_regions (mlir-instrument/examples/two_regions.mlir, memory-bound): a grid-stride loop in
  scope "loop"; each iteration loads x and y in scope "load" and adds (x * 1.5 + y)^2 to the sum
  in scope "compute". Every lane runs the same trip count here (masked past n), where the MLIR
  kernel's threads each stop at n.
- compute_regions (tests/gpu/compute_regions.mlir, compute-bound): each thread loads x[i], then
  64 iterations of a runtime loop (`range`), each of 16 dependent (mul 1.0001, add 0.5) pairs
  unrolled by tl.static_range inside scope "fma", all inside scope "kernel"; stores out[i].

Variants, interleaved within each round (LAUNCHES timed launches each, after warm-up launches):
- plain: SCOPES=False, no Proton session. The pl calls sit under `if SCOPES:`, which Triton's
  code generator resolves at compile time (a constexpr condition), so they are not in the IR; the
  script checks that the compiled TTGIR has no proton.record (and that the others have some).
- proton-global: SCOPES=True under proton.start(backend="instrumentation",
  mode="default:buffer_type=global:buffer_size=8192"): each record stored to the global profile
  buffer as it happens.
- proton-shared: the same with buffer_type=shared: records kept in shared memory, copied to the
  profile buffer at the kernel's end. This is what plain mode="default" gives in Triton 3.6
  (_interpret_mode in triton/profiler/hooks/instrumentation.py defaults buffer_type to shared).
buffer_size=8192 (record bytes per CTA, 2048 per warp) is mlir-instrument's default and what
Proton picks by itself for shared here; its default for global (16 KiB per warp) would make the
buffer of 2640 CTAs larger than the 64 MiB host buffer Proton copies it into, which is an error.
With BLOCKS >= 264 no warp writes more than 130 records of 8 bytes: no ring wraps. Each Proton
variant is one session per round: started, warmed up, timed, finalized (its tree goes to a
temporary directory, and the script checks that the kernel's scopes are in it).

Kernel time only, from CUDA events. Proton's exit hook (InstrumentationProfiler::
exitInstrumentedOp) synchronizes the stream after every launch, copies the profile buffer to the
host and decodes it there, all before `kernel[grid](...)` returns: a stop event recorded after
the call would hold all of that. So the events are recorded by Triton's own launch hooks, which
its launcher calls on the host right before and right after cuLaunchKernelEx; ours are added
after Proton's, so our enter hook runs after Proton's and our exit hook (launch_exit_hook calls
its chain in reverse order) before Proton's: the window holds the kernel, not Proton's host work.
The plain variant is timed through the same hooks. A spin kernel (torch.cuda._sleep) enqueued
before each launch keeps the GPU busy until the launch is enqueued, so the window excludes the
host's launch latency too (instrumented_workload's includes it: plain times here are lower than
bench/instrumentation_overhead.sh's; compare the ratios).

Prints every round's median times and ratios to plain, then per kernel the plain median time and
each Proton variant's median ratio with its range over the rounds. Proton decodes every launch's
buffer on the host (compute_regions: 2640 CTAs x 4 warps x 65 record pairs), so its variants take
much longer than plain; each round line ends with the round's wall time.

Usage (on a GPU machine with Triton 3.6 and PyTorch; no protond needed):
    python3 bench/instrumentation_overhead_triton.py [ROUNDS [LAUNCHES [BLOCKS]]]
Defaults 7, 50, 2640 (as docs/performance.md ran the MLIR kernels). BLOCKS at most about 8000
(Proton's 64 MiB host buffer at 8320 bytes per CTA). Exits 2 when no CUDA device is usable.
"""
import contextlib
import json
import os
import sys
import tempfile
import time

import torch
import triton
import triton.language as tl
import triton.profiler as proton
import triton.profiler.language as pl
from triton import knobs

pl.enable_semantic("triton")  # in 3.6 the pl scopes take only Gluon kernels without this

N = 1 << 20  # the MLIR kernels' array length (instrumented_workload's kElements)
BLOCK = 128
WARMUP_LAUNCHES = 2
SPIN_CYCLES = 1_000_000  # about 0.5 ms on an H100: longer than a Triton launch's host path
MODES = {
    "proton-global": "default:buffer_type=global:buffer_size=8192",
    "proton-shared": "default:buffer_type=shared:buffer_size=8192",
}
VARIANTS = ["plain", *MODES]
SCOPE_NAMES = {"two_regions": ("loop", "load", "compute"), "compute_regions": ("kernel", "fma")}


@triton.jit
def two_regions(x_ptr, y_ptr, out_ptr, n, SCOPES: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    stride = tl.num_programs(0) * BLOCK
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    if SCOPES:
        pl.enter_scope("loop")
    for start in range(0, n, stride):
        i = start + offsets
        if SCOPES:
            pl.enter_scope("load")
        xv = tl.load(x_ptr + i, mask=i < n, other=0.0)
        yv = tl.load(y_ptr + i, mask=i < n, other=0.0)
        if SCOPES:
            pl.exit_scope("load")
            pl.enter_scope("compute")
        q = xv * 1.5 + yv
        acc += q * q
        if SCOPES:
            pl.exit_scope("compute")
    if SCOPES:
        pl.exit_scope("loop")
    tl.store(out_ptr + offsets, acc, mask=offsets < n)


@triton.jit
def compute_regions(x_ptr, y_ptr, out_ptr, n, SCOPES: tl.constexpr, BLOCK: tl.constexpr):
    i = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) % n
    if SCOPES:
        pl.enter_scope("kernel")
    v = tl.load(x_ptr + i)
    for k in range(64):
        if SCOPES:
            pl.enter_scope("fma")
        for j in tl.static_range(16):
            v = v * 1.0001 + 0.5  # dependent: nothing to fold or vectorize; fused into one FMA
        if SCOPES:
            pl.exit_scope("fma")
    if SCOPES:
        pl.exit_scope("kernel")
    tl.store(out_ptr + i, v)


KERNELS = {"two_regions": two_regions, "compute_regions": compute_regions}


class LaunchEvents:
    """CUDA events on the launch stream, recorded by Triton's launch hooks around each launch
    while the block runs. Install after proton.start: the exit chain runs last-added first."""

    def __init__(self):
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self._enter = lambda metadata: self.start.record()
        self._exit = lambda metadata: self.stop.record()

    def __enter__(self):
        knobs.runtime.launch_enter_hook.add(self._enter)
        knobs.runtime.launch_exit_hook.add(self._exit)
        return self

    def __exit__(self, *exc):
        knobs.runtime.launch_enter_hook.remove(self._enter)
        knobs.runtime.launch_exit_hook.remove(self._exit)


@contextlib.contextmanager
def proton_session(path, mode):
    """A Proton instrumentation session (none where mode is None), finalized after the block:
    its tree goes to path.hatchet."""
    if mode is None:
        yield
        return
    if proton.start(path, backend="instrumentation", mode=mode) is None:
        sys.exit("proton.start returned no session: profiling is disabled (TRITON_PROTON_DISABLE)"
                 " or the script runs under Proton's command-line launcher")
    try:
        yield
    finally:
        proton.finalize()


def median_kernel_us(launch, launches):
    """The median kernel time of `launches` launches, in microseconds."""
    times_ms = []
    with LaunchEvents() as events:
        for _ in range(launches):
            torch.cuda._sleep(SPIN_CYCLES)
            launch()
            events.stop.synchronize()
            times_ms.append(events.start.elapsed_time(events.stop))
    return sorted(times_ms)[len(times_ms) // 2] * 1000


def check_records(compiled, label, instrumented):
    if ("proton.record" in compiled.asm["ttgir"]) != instrumented:
        sys.exit(f"{label}: the compiled kernel {'has no' if instrumented else 'has'} "
                 "proton.record ops")


def check_tree(path, scopes):
    """Exits unless every scope name is a frame of Proton's tree in `path`."""
    with open(path) as f:
        tree = json.load(f)
    names, stack = set(), [tree[0] if isinstance(tree, list) else tree]
    while stack:
        node = stack.pop()
        names.add(node["frame"]["name"])
        stack.extend(node.get("children", []))
    missing = [scope for scope in scopes if scope not in names]
    if missing:
        sys.exit(f"{path}: Proton's tree has no scope {', '.join(missing)}")


def time_variant(name, variant, launches, blocks, arrays, path):
    """Warms up, checks and times one variant of kernel `name`; its median kernel time in us."""
    mode = MODES.get(variant)

    def launch():
        return KERNELS[name][(blocks, )](*arrays, N, SCOPES=mode is not None, BLOCK=BLOCK,
                                         num_warps=4, num_stages=1)

    with proton_session(path, mode):
        for _ in range(WARMUP_LAUNCHES):
            compiled = launch()
        torch.cuda.synchronize()
        check_records(compiled, f"{name} {variant}", mode is not None)
        us = median_kernel_us(launch, launches)
    if mode is not None:
        check_tree(path + ".hatchet", SCOPE_NAMES[name])
    return us


def summary(label, ratios):
    """Median and range, as bench/instrumentation_overhead.sh prints them."""
    r = sorted(ratios)
    return (f"{label}: median {r[(len(r) - 1) // 2]:.3f}x of plain (min {r[0]:.3f}, "
            f"max {r[-1]:.3f}, {len(r)} rounds)")


def run_rounds(name, rounds, launches, blocks, arrays, out_dir):
    times_us = {variant: [] for variant in VARIANTS}
    for round_index in range(1, rounds + 1):
        begin = time.perf_counter()
        for variant in VARIANTS:
            path = os.path.join(out_dir, f"{name}_{variant}_{round_index}")
            times_us[variant].append(time_variant(name, variant, launches, blocks, arrays, path))
        plain = times_us["plain"][-1]
        others = ", ".join(f"{variant} {times_us[variant][-1]:.1f} us "
                           f"({times_us[variant][-1] / plain:.3f}x)" for variant in MODES)
        print(f"{name} round {round_index}: plain {plain:.1f} us, {others} "
              f"({time.perf_counter() - begin:.1f} s)", flush=True)
    plain = sorted(times_us["plain"])
    print(f"{name} plain: median {plain[(len(plain) - 1) // 2]:.1f} us (min {plain[0]:.1f}, "
          f"max {plain[-1]:.1f}, {len(plain)} rounds)")
    for variant in MODES:
        print(summary(f"{name} {variant}",
                      [t / p for t, p in zip(times_us[variant], times_us["plain"])]))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    blocks = int(sys.argv[3]) if len(sys.argv) > 3 else 2640
    if not torch.cuda.is_available():
        print("instrumentation_overhead_triton: no usable CUDA device", file=sys.stderr)
        return 2
    exit_chain = knobs.runtime.launch_exit_hook
    if not (hasattr(exit_chain, "add") and getattr(exit_chain, "reversed", False)):
        print("instrumentation_overhead_triton: needs Triton's launch hook chains (3.5 or later)",
              file=sys.stderr)
        return 1
    arrays = [torch.ones(N, device="cuda") for _ in range(3)]  # x, y, out
    print(f"triton {triton.__version__}, {torch.cuda.get_device_name()}: {blocks} CTAs x 4 warps, "
          f"{launches} launches per variant per round; " +
          ", ".join(f"{variant}: mode={mode}" for variant, mode in MODES.items()))
    with tempfile.TemporaryDirectory() as out_dir:
        for name in KERNELS:
            run_rounds(name, rounds, launches, blocks, arrays, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
