#!/usr/bin/env python3
"""Runs one Triton+PyTorch program twice, changing only its import: `import triton.profiler as
proton` (Triton's own Proton) and `import protond.profiler as proton` (protond), and compares the
two .hatchet files. The program has nested scopes, a state, cpu_timed_scope, user metrics, and
Triton kernels under the launch hook (hook="triton"), one with launch_metadata that renames it
and gives it flops16 and bytes, and a forward and backward pass (autograd's thread). The files must have the same paths, the same metric names on
each, the same counts and user metrics, and kernel times within 5%. cpu_time values are compared
by presence only (they are host time, different in every run).

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/compare_python_api.py BUNDLE_DIR [shadow|python [KEEP_DIR]]
(the second argument is start()'s context; with "python" the paths are Python frames; with
KEEP_DIR, both files are copied there, as theirs.hatchet and ours.hatchet).
Exit code 0 when the files agree; the comparison is printed either way.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from gpu_common import protond, write_program  # noqa: E402

TIME_TOLERANCE = 0.05

PROGRAM = r'''
import sys, torch
if sys.argv[1] == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton

def matmul_metadata(grid, metadata, args):
    m, n, k = args["M"], args["N"], args["K"]
    return {"name": f"matmul_{m}x{n}x{k}", "flops16": 2 * m * n * k,
            "bytes": 2 * (m * k + k * n + m * n)}

@triton.jit(launch_metadata=matmul_metadata)
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inner = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        a = tl.load(a_ptr + rows[:, None] * K + (k0 + inner)[None, :])
        b = tl.load(b_ptr + (k0 + inner)[:, None] * N + cols[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))

x = torch.zeros(1 << 20, device="cuda")
a = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
c = torch.empty_like(a)
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 1)).cuda()
inputs = torch.randn(64, 256, device="cuda")
def step():
    with proton.scope("triton", metrics={"launches": 3}):
        for _ in range(3):
            add_one[(x.numel() // 1024,)](x, x.numel(), BLOCK=1024)
        with proton.state("fwd"):
            matmul[(2048 // 64, 2048 // 64)](a, a, c, 2048, 2048, 2048, BLOCK=64)
    with proton.scope("torch", metrics={"flops": 2 * 2048 ** 3}):
        a @ a
        x.mul_(0.5)
    with proton.scope("autograd"):  # backward's kernels come from autograd's own thread
        model(inputs).sum().backward()
step()  # compile and warm up before profiling
torch.cuda.synchronize()

proton.start(sys.argv[2], hook="triton", context=sys.argv[3])
with proton.scope("model"):
    for _ in range(20):
        with proton.cpu_timed_scope("step"):
            step()
torch.cuda.synchronize()
proton.finalize()
'''


def flatten(path, context):
    """{path: metrics} for every node of a .hatchet file, ROOT excluded. With context="python",
    only GPU nodes, and without the profilers' own frames: Proton's paths show its hook and scope
    internals (triton/profiler/...), protond leaves its own out, and Proton puts scopes at their
    Python frames where protond keeps them as named scopes."""
    with open(path) as f:
        root, device_info = json.load(f)
    nodes = {}

    def walk(node, prefix):
        for child in node["children"]:
            name = child["frame"]["name"]
            internal = context == "python" and ("/triton/profiler/" in name or
                                                "/protond/profiler/" in name)
            here = prefix if internal else (f"{prefix}/{name}" if prefix else name)
            if context != "python" or "count" in child["metrics"]:
                nodes[here] = child["metrics"]
            walk(child, here)

    walk(root, "")
    return nodes, root["metrics"], device_info


def compare(theirs, ours):
    problems = []
    for path in sorted(set(theirs) | set(ours)):
        if path not in theirs or path not in ours:
            problems.append(f"{path}: only in {'protond' if path in ours else 'Proton'}")
            continue
        t, o = theirs[path], ours[path]
        if set(t) != set(o):
            problems.append(f"{path}: metrics {sorted(t)} (Proton) vs {sorted(o)} (protond)")
        for key in set(t) & set(o):
            if key == "cpu_time (ns)":
                continue
            if key == "time (ns)":
                ratio = o[key] / t[key] if t[key] else float("inf")
                print(f"{path[-60:]:60} time ratio {ratio:.3f}")
                if abs(ratio - 1) > TIME_TOLERANCE:
                    problems.append(f"{path}: time {t[key]} (Proton) vs {o[key]} (protond)")
            elif t[key] != o[key]:
                problems.append(f"{path}: {key} = {t[key]} (Proton) vs {o[key]} (protond)")
    return problems


def report(problems):
    """Prints the differences found; the exit code: 0 when there are none."""
    for problem in problems:
        print("DIFFERS:", problem)
    print("files agree" if not problems else f"{len(problems)} differences")
    return 1 if problems else 0


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    context = sys.argv[2] if len(sys.argv) > 2 else "shadow"
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        subprocess.run([sys.executable, program, "proton", "theirs", context], check=True,
                       cwd=work)
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        subprocess.run([sys.executable, program, "protond", "ours", context], check=True,
                       cwd=work, env=env)
    if len(sys.argv) > 3:
        for name in ("theirs", "ours"):
            shutil.copy(f"{work}/{name}.hatchet", sys.argv[3])
    theirs, their_root, their_devices = flatten(f"{work}/theirs.hatchet", context)
    ours, our_root, our_devices = flatten(f"{work}/ours.hatchet", context)
    problems = compare(theirs, ours)
    if their_root != our_root:
        problems.append(f"ROOT metrics {their_root} (Proton) vs {our_root} (protond)")
    if their_devices != our_devices:
        problems.append(f"device_info {their_devices} (Proton) vs {our_devices} (protond)")
    print(json.dumps({"proton": theirs, "protond": ours}, indent=1, sort_keys=True)[:6000])
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
