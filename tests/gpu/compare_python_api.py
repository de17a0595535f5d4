#!/usr/bin/env python3
"""Runs one Triton+PyTorch program twice, changing only its import: `import triton.profiler as
proton` (Triton's own Proton) and `import protond.profiler as proton` (protond), and compares the
two .hatchet files. The program has nested scopes, a state, cpu_timed_scope, user metrics, and
Triton kernels under the launch hook (hook="triton"), one with launch_metadata that renames it
and gives it flops16 and bytes, and a forward and backward pass (autograd's thread). The files must have the same paths, the same metric names on
each, the same counts and user metrics, and kernel times within 5%. cpu_time values are compared
by presence only (they are host time, different in every run).

The kernels the program launches (EXPECTED) must be in both files: two empty files do not agree.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/compare_python_api.py BUNDLE_DIR [shadow|python [KEEP_DIR]]
    tests/gpu/compare_python_api.py --files THEIRS.hatchet OURS.hatchet [shadow|python]
(the second argument is start()'s context; with "python" the paths are Python frames; with
KEEP_DIR, both files are copied there, as theirs.hatchet and ours.hatchet; --files compares
files kept before).
Exit code 0 when the files agree; the comparison is printed either way.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hatchet_check  # noqa: E402
from gpu_common import protond, write_program  # noqa: E402

TIME_TOLERANCE = 0.05

# The kernels of the program's 20 steps, in each context (tests/gpu/hatchet_check.py's rules):
# add_one x3 and the renamed matmul (under its state) in triton, a matmul (one kernel or more) and
# a mul in torch, the model's forward and backward in autograd (4 kernels a pass at least). In
# the shadow context backward's kernels sit in the scope around backward(); in the Python
# context autograd's threads have no frames, so their kernels sit under ROOT.
EXPECTED = {
    "shadow": ["model/step/triton/add_one=60", "**/matmul_2048x2048x2048=20",
               "model/step/torch/~mul=20", "model/step/torch/*>=40",
               "model/step/autograd/**>=160"],
    "python": ["**/add_one=60", "**/matmul_2048x2048x2048=20", "*>=80"],
}

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


def lacking(theirs_path, ours_path, rules):
    """What either file lacks by `rules` (tests/gpu/hatchet_check.py), one line each; an empty
    file lacks everything. ProfileError for a file that cannot be read."""
    return [problem for side, path in (("Proton's file", theirs_path),
                                       ("protond's file", ours_path))
            for problem in hatchet_check.failures(
                hatchet_check.launches(hatchet_check.load(path)), rules, side)]


def check_files(theirs_path, ours_path, context):
    """The differences between the two files, and what either lacks of EXPECTED."""
    try:
        problems = lacking(theirs_path, ours_path, EXPECTED[context])
    except hatchet_check.ProfileError as error:
        return [str(error)]
    theirs, their_root, their_devices = flatten(theirs_path, context)
    ours, our_root, our_devices = flatten(ours_path, context)
    problems += compare(theirs, ours)
    if their_root != our_root:
        problems.append(f"ROOT metrics {their_root} (Proton) vs {our_root} (protond)")
    if their_devices != our_devices:
        problems.append(f"device_info {their_devices} (Proton) vs {our_devices} (protond)")
    print(json.dumps({"proton": theirs, "protond": ours}, indent=1, sort_keys=True)[:6000])
    return problems


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--files":
        context = sys.argv[4] if len(sys.argv) > 4 else "shadow"
        return report(check_files(sys.argv[2], sys.argv[3], context))
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
    return report(check_files(f"{work}/theirs.hatchet", f"{work}/ours.hatchet", context))


if __name__ == "__main__":
    sys.exit(main())
