#!/usr/bin/env python3
"""Profiles one PyTorch+Triton program (scopes, and an NVTX range) with Triton's own Proton and
with protond, and compares the two trees: the same paths, the same kernel names and counts, kernel
times within 5%.

The kernels the program launches (EXPECTED) must be on both sides: two empty trees do not agree,
and a line of protond's tree that cannot be read is a difference, never skipped.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/compare_with_proton.py BUNDLE_DIR
    tests/gpu/compare_with_proton.py --files PROTON.hatchet PROTOND_TREE.txt  (saved outputs)
Exit code 0 when the trees agree; the comparison is printed either way.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hatchet_check  # noqa: E402
from gpu_common import protond, shim_env, write_program  # noqa: E402

TIME_TOLERANCE = 0.05

# The program: identical under both profilers except for how scopes are opened. Both start
# profiling after a warm-up (Triton compiles on the first launch) and stop at the end.
PROGRAM = r'''
import contextlib, ctypes, os, sys
import torch

x = torch.zeros(1 << 20, device="cuda")
a = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
def step(scope, nvtx=True):
    with scope("triton"):
        for _ in range(3):
            add_one[(x.numel() // 1024,)](x, x.numel(), BLOCK=1024)
    with scope("torch"):
        a @ a
        x.mul_(0.5)
    # An NVTX range is a scope to both profilers. NVTX loads its tool at the first NVTX call,
    # which Proton arranges only at start(): the warm-up makes none.
    if nvtx:
        torch.cuda.nvtx.range_push("nvtx_range")
        x.add_(2.0)
        torch.cuda.nvtx.range_pop()

def nothing(name):
    return contextlib.nullcontext()
step(nothing, nvtx=False)
torch.cuda.synchronize()

mode, name = sys.argv[1], sys.argv[2]
if mode == "proton":
    import triton.profiler as proton
    proton.start(name)
    scope = proton.scope
else:
    shim = ctypes.CDLL(os.environ["PROTOND_SHIM"])
    session = ctypes.c_uint64(0)
    assert shim.protond_session_start(name.encode(), ctypes.byref(session)) == 0
    @contextlib.contextmanager
    def scope(scope_name):
        shim.protond_scope_enter(scope_name.encode())
        yield
        shim.protond_scope_exit(scope_name.encode())

with scope("model"):
    for _ in range(20):
        with scope("step"):
            step(scope)
torch.cuda.synchronize()
if mode == "proton":
    proton.finalize()
else:
    assert shim.protond_session_stop(session) == 0
    print("session", session.value)
'''


# The kernels the program launches in its 20 steps, on both sides (tests/gpu/hatchet_check.py's
# rules): 3 add_one launches under triton; under torch a matmul (one kernel or more, by cuBLAS's
# choice) and a mul; an add under the NVTX range. PyTorch names its kernels by version
# (MulFunctor, CUDAFunctorOnSelf_add), hence ~mul and ~add.
EXPECTED = ["model/step/triton/add_one=60", "model/step/triton/*=60", "model/step/torch/~mul=20",
            "model/step/torch/*>=40", "model/step/nvtx_range/~add=20",
            "model/step/nvtx_range/*=20", "*=0"]


def proton_tree(path):
    """{path: (count, time_ns)} from a Proton .hatchet file, for nodes with a count; a path is the
    tuple of frame names below ROOT."""
    nodes = {}

    def walk(node, prefix):
        for child in node["children"]:
            name = prefix + (child["frame"]["name"],)
            metrics = child["metrics"]
            if metrics.get("count"):
                nodes[name] = (metrics["count"], metrics.get("time (ns)", 0))
            walk(child, name)

    walk(hatchet_check.load(path), ())
    return nodes


def protond_tree(text):
    """({path: (count, time_ns)}, [lines not understood]) from `protonctl tree -m time/ns,count
    --mangled` output (kernel names as Proton's file has them), for GPU nodes. Every line must be
    the header, ROOT or a node: one that is not is returned, never skipped."""
    lines = text.splitlines()
    if not lines or "time (ns)" not in lines[0] or "count" not in lines[0]:
        return {}, [f"no 'time (ns)  count' header: {lines[:1]}"]
    header = lines[0]
    time_end = header.index("time (ns)") + len("time (ns)")
    count_end = header.index("count") + len("count")
    nodes, stack, unparsed = {}, [], []
    for number, line in enumerate(lines[1:], 2):
        if number == 2 and line[count_end + 2:] == "ROOT":
            continue
        match = re.match(r"((?:│  |   )*)(?:├─|└─) (.+)$", line[count_end + 2:])
        time_text = line[:time_end].strip()
        count_text = line[time_end:count_end].strip()
        if not match or not re.fullmatch(r"(\d+(\.\d*)?(e[+-]\d+)?)?", time_text) or \
                not re.fullmatch(r"\d*", count_text):
            unparsed.append(f"line {number}: {line!r}")
            continue
        depth = len(match.group(1)) // 3
        if depth > len(stack):
            unparsed.append(f"line {number} (deeper than its parent's child): {line!r}")
            continue
        stack[depth:] = [match.group(2)]
        if time_text:  # a GPU node: kernels, copies, sets, and the scopes above them
            nodes[tuple(stack)] = (int(count_text or 0), float(time_text))
    return nodes, unparsed


def leaves(nodes):
    return {path: value for path, value in nodes.items()
            if not any(other[:len(path)] == path and other != path for other in nodes)}


def compare(theirs, ours, unparsed):
    """Prints the two trees' leaves side by side; the problems found, one line each."""
    problems = [f"protonctl tree: cannot read {line}" for line in unparsed]
    for side, nodes in (("Proton", theirs), ("protond", ours)):
        problems += hatchet_check.failures({path: count for path, (count, _) in nodes.items()},
                                           EXPECTED, f"{side}'s tree")
    print(f"{'path':70} {'count P/d':>12} {'time ns Proton':>15} {'protond':>12} {'ratio':>6}")
    for path in sorted(set(theirs) | set(ours)):
        (pc, pt), (dc, dt) = theirs.get(path, (0, 0)), ours.get(path, (0, 0))
        ratio = dt / pt if pt else float("inf")
        agree = pc == dc and abs(ratio - 1) <= TIME_TOLERANCE
        name = "/".join(path)
        if not agree:
            problems.append(f"{name}: count {pc} (Proton) vs {dc} (protond), "
                            f"time ratio {ratio:.3f}")
        print(f"{name[-70:]:70} {f'{pc}/{dc}':>12} {pt:15.0f} {dt:12.0f} {ratio:6.3f}"
              f"{'' if agree else '  <-- differs'}")
    for problem in problems:
        print("DIFFERS:", problem)
    print("trees agree" if not problems else f"TREES DIFFER: {len(problems)} problems")
    return problems


def profile(bundle, work):
    """Runs the program under Proton, then under protond: (Proton's .hatchet path, the text of
    protond's tree)."""
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        subprocess.run([sys.executable, program, "proton", f"{work}/proton"], check=True, cwd=work)
        out = subprocess.run([sys.executable, program, "protond", "compare"], check=True,
                             env=shim_env(bundle, socket), capture_output=True, text=True).stdout
        session = re.search(r"session (\d+)", out).group(1)
        text = subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "tree", session,
                               "-m", "time/ns,count", "--mangled"], check=True,
                              capture_output=True, text=True).stdout
    return f"{work}/proton.hatchet", text


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--files":
        hatchet_path = sys.argv[2]
        with open(sys.argv[3]) as f:
            text = f.read()
    else:
        bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
        hatchet_path, text = profile(bundle, tempfile.mkdtemp())
    print(text)
    try:
        theirs = leaves(proton_tree(hatchet_path))
    except hatchet_check.ProfileError as error:
        print(f"TREES DIFFER: Proton's file: {error}")
        return 1
    ours, unparsed = protond_tree(text)
    return 1 if compare(theirs, leaves(ours), unparsed) else 0


if __name__ == "__main__":
    sys.exit(main())
