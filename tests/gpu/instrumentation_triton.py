#!/usr/bin/env python3
"""A Triton kernel instrumented by Triton 3.6's own compiler (Proton's backend="instrumentation"),
its buffer handed to protond with protond.profiler.instrumentation.record_buffer, and both trees
compared: protond's per-scope cycles must be Proton's own (the rings do not wrap here, so the two
readings agree exactly). A trace session beside it must show every interval in its Chrome trace,
each inside the kernel's launch.

Usage (on a GPU machine with Triton 3.6, from a bundle made by scripts/bundle.sh):
    tests/gpu/instrumentation_triton.py BUNDLE_DIR
Exit code 0 when the numbers agree.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from gpu_common import protond  # noqa: E402

PROGRAM = r'''
import sys
import torch, triton, triton.language as tl
import triton.profiler as proton
import triton.profiler.language as pl
from triton.profiler.hooks import instrumentation as hooks
import protond.profiler as pd
from protond.profiler import instrumentation

pl.enable_semantic("triton")
hooks.InstrumentationHook.enable_host_buffer = True
# The scope names Triton's compiler gave each kernel, as its hook hands them to Proton.
scope_names = {}
init_function_metadata = hooks.libproton.init_function_metadata
def remember(function, name, names, parents, metadata_path):
    scope_names[name] = names
    return init_function_metadata(function, name, names, parents, metadata_path)
hooks.libproton.init_function_metadata = remember

@triton.jit
def kern(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    pl.enter_scope("outer")
    for i in range(ITERS):
        pl.enter_scope("load")
        v = tl.load(x_ptr + offs, mask=offs < n)
        pl.exit_scope("load")
        acc += v * 1.5
    pl.exit_scope("outer")
    tl.store(y_ptr + offs, acc, mask=offs < n)

n = 16 * 512
x = torch.randn(n, device="cuda"); y = torch.empty_like(x)
proton.start("theirs", backend="instrumentation", mode="default")
pd.start("ours")
pd.start("ours_trace", data="trace")
with pd.scope("step"):
    kern[(16,)](x, y, n, ITERS=8, BLOCK=512, num_warps=4)
    torch.cuda.synchronize()
    names = scope_names["kern"]
    # [(id, name)] pairs or names by id, whichever this Triton gives.
    if names and not isinstance(names[0], str):
        names = [name for _, name in sorted(dict(names).items())]
    print("scopes", names)
    host = bytes(hooks.InstrumentationHook.host_buffer.numpy())
    print("recorded", instrumentation.record_buffer("kern", host, list(names)))
pd.finalize()
proton.finalize()
'''


def scopes_under(hatchet_path, kernel):
    """{scope name: metrics} of every node below the first node named `kernel` (Proton nests
    in-kernel scopes; protond keeps them flat under the kernel)."""
    with open(hatchet_path) as f:
        stack = [json.load(f)[0]]
    while stack:
        node = stack.pop()
        if node["frame"]["name"] == kernel:
            scopes, below = {}, list(node.get("children", []))
            while below:
                child = below.pop()
                scopes[child["frame"]["name"]] = child["metrics"]
                below.extend(child.get("children", []))
            return scopes
        stack.extend(node.get("children", []))
    return {}


def timeline_failures(chrome_path):
    """What is wrong with the trace session's in-kernel timeline: in each of the 16 programs' 4
    warps, one "outer" and 8 "load" intervals, each within the kernel's launch (1 us of slack)."""
    with open(chrome_path) as f:
        events = json.load(f)["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel" and e["name"] == "kern"]
    intervals = [e for e in events if e.get("cat") == "kernel_scope"]
    warps = {(e["args"]["block_id"], e["args"]["warp_id"]) for e in intervals}
    print(f"timeline: {len(intervals)} intervals in {len(warps)} warp lanes")
    failures = []
    if len(warps) != 16 * 4 or len(intervals) != 16 * 4 * (1 + 8):
        failures.append(f"timeline: {len(intervals)} intervals in {len(warps)} warps, expected "
                        f"{16 * 4 * 9} in 64")
    if len(kernels) != 1:
        return failures + [f"timeline: {len(kernels)} launches of kern, expected 1"]
    start, end = kernels[0]["ts"], kernels[0]["ts"] + kernels[0]["dur"]
    outside = [e for e in intervals if e["ts"] < start - 1 or e["ts"] + e["dur"] > end + 1]
    if outside:
        failures.append(f"timeline: {len(outside)} intervals outside the launch [{start}, {end}]"
                        f" us, such as {outside[0]}")
    return failures


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = os.path.join(work, "program.py")
    with open(program, "w") as f:
        f.write(PROGRAM)
    with protond(bundle, work) as socket:
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        run = subprocess.run([sys.executable, program], cwd=work, env=env, capture_output=True,
                             text=True)
        print(run.stdout[-2000:], run.stderr[-3000:], sep="", end="")
        subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "sessions"])
        subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "tree", "1", "-m",
                        "cycles,normalized_cycles,time/us", "-d", "4"])
    if run.returncode != 0:
        print(f"FAIL: the program failed (exit code {run.returncode})")
        return 1
    theirs = scopes_under(os.path.join(work, "theirs.hatchet"), "kern")
    ours = scopes_under(os.path.join(work, "ours.hatchet"), "kern")
    failures = []
    print(f"{'scope':10} {'Proton cycles':>14} {'protond cycles':>15} {'Proton norm':>12} "
          f"{'protond norm':>13}")
    for name in sorted(set(theirs) | set(ours)):
        t, o = theirs.get(name, {}), ours.get(name, {})
        print(f"{name:10} {t.get('cycles', '-'):>14} {o.get('cycles', '-'):>15} "
              f"{t.get('normalized_cycles', '-'):>12} {o.get('normalized_cycles', '-'):>13}")
        for metric in ("cycles", "normalized_cycles"):
            if t.get(metric) != o.get(metric):
                failures.append(f"{name} {metric}: Proton {t.get(metric)}, protond {o.get(metric)}")
    for side, scopes in (("Proton", theirs), ("protond", ours)):
        missing = {"outer", "load"} - set(scopes)
        if missing:
            failures.append(f"{side}'s tree has no scope {' or '.join(sorted(missing))} under kern")
    failures += timeline_failures(os.path.join(work, "ours_trace.chrome_trace"))
    for failure in failures:
        print("FAIL:", failure)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
