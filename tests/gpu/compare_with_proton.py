#!/usr/bin/env python3
"""Profiles one PyTorch+Triton program (scopes, and an NVTX range) with Triton's own Proton and
with protond, and compares the two trees: the same paths, the same kernel names and counts, kernel
times within 5%.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/compare_with_proton.py BUNDLE_DIR
Exit code 0 when the trees agree; the comparison is printed either way.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
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


def proton_tree(path):
    """{path: (count, time_ns)} from a Proton .hatchet file, for nodes with a count."""
    with open(path) as f:
        root = json.load(f)[0]
    nodes = {}

    def walk(node, prefix):
        for child in node["children"]:
            name = prefix + "/" + child["frame"]["name"] if prefix else child["frame"]["name"]
            metrics = child["metrics"]
            if metrics.get("count"):
                nodes[name] = (metrics["count"], metrics.get("time (ns)", 0))
            walk(child, name)

    walk(root, "")
    return nodes


def protond_tree(text):
    """{path: (count, time_ns)} from `protonctl tree -m time/ns,count --mangled` output (kernel
    names as Proton's file has them), for GPU nodes."""
    lines = text.splitlines()
    header = lines[0]
    time_end = header.index("time (ns)") + len("time (ns)")
    count_end = header.index("count") + len("count")
    nodes, stack = {}, []
    for line in lines[2:]:  # skip the header and ROOT
        match = re.match(r"((?:│  |   )*)(?:├─|└─) (.*)$", line[count_end + 2:])
        if not match:
            continue
        depth = len(match.group(1)) // 3
        stack[depth:] = [match.group(2)]
        time_text = line[:time_end].strip()
        count_text = line[time_end:count_end].strip()
        if time_text:  # a GPU node: kernels, copies, sets, and the scopes above them
            nodes["/".join(stack)] = (int(count_text or 0), float(time_text))
    return nodes


def leaves(nodes):
    return {path: value for path, value in nodes.items()
            if not any(other.startswith(path + "/") for other in nodes)}


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        subprocess.run([sys.executable, program, "proton", f"{work}/proton"], check=True, cwd=work)
        out = subprocess.run([sys.executable, program, "protond", "compare"], check=True,
                             env=shim_env(bundle, socket), capture_output=True, text=True).stdout
        session = re.search(r"session (\d+)", out).group(1)
        text = subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "tree", session,
                               "-m", "time/ns,count", "--mangled"], check=True,
                              capture_output=True, text=True).stdout
    theirs = leaves(proton_tree(f"{work}/proton.hatchet"))
    ours = leaves(protond_tree(text))
    print(text)
    ok = set(theirs) == set(ours)
    print(f"{'path':70} {'count P/d':>12} {'time ns Proton':>15} {'protond':>12} {'ratio':>6}")
    for path in sorted(set(theirs) | set(ours)):
        (pc, pt), (dc, dt) = theirs.get(path, (0, 0)), ours.get(path, (0, 0))
        ratio = dt / pt if pt else float("inf")
        agree = pc == dc and abs(ratio - 1) <= TIME_TOLERANCE
        ok = ok and agree
        print(f"{path[-70:]:70} {f'{pc}/{dc}':>12} {pt:15.0f} {dt:12.0f} {ratio:6.3f}"
              f"{'' if agree else '  <-- differs'}")
    print("trees agree" if ok else "TREES DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
