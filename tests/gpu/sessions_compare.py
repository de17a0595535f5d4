#!/usr/bin/env python3
"""Several sessions open at once, under Triton's own Proton and under protond.profiler: one
program (changing only its import) opens session "a", then "b", deactivates "a" for a while,
finalizes "a", does more work, and finalizes "b". (No scope spans a start or an activate: Proton
3.6 then fails the scope's exit with "RuntimeError: Context stack is empty"; protond does not.) Each session's .hatchet file must
have the same paths, counts and metric names under both profilers, and kernel times within 5%:
each session holds the kernels of its own window, and nothing else.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/sessions_compare.py BUNDLE_DIR
Exit code 0 when the files agree; the comparison is printed either way.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from compare_python_api import compare, flatten, report  # noqa: E402
from gpu_common import protond, write_program  # noqa: E402

PROGRAM = r'''
import sys, torch
if sys.argv[1] == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton
prefix = sys.argv[2]

x = torch.zeros(1 << 20, device="cuda")
def triton_work(times):
    for _ in range(times):
        add_one[(x.numel() // 1024,)](x, x.numel(), BLOCK=1024)
def torch_work(times):
    for _ in range(times):
        x.mul_(0.5)
triton_work(1)
torch_work(1)
torch.cuda.synchronize()

a = proton.start(f"{prefix}_a", hook="triton")
with proton.scope("a_only"):
    triton_work(5)
b = proton.start(f"{prefix}_b", hook="triton")
with proton.scope("both"):
    triton_work(7)
    torch_work(7)
torch.cuda.synchronize()
proton.deactivate(a)
with proton.scope("b_only"):
    triton_work(3)
torch.cuda.synchronize()
proton.activate(a)
with proton.scope("both_again"):
    torch_work(4)
torch.cuda.synchronize()
proton.finalize(a)
with proton.scope("after_a"):
    triton_work(2)
torch.cuda.synchronize()
proton.finalize()
print(prefix, "ids", a, b)
'''


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        subprocess.run([sys.executable, program, "proton", "theirs"], check=True, cwd=work)
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        subprocess.run([sys.executable, program, "protond", "ours"], check=True, cwd=work,
                       env=env)
    problems = []
    for session in ("a", "b"):
        theirs, their_root, _ = flatten(f"{work}/theirs_{session}.hatchet", "shadow")
        ours, our_root, _ = flatten(f"{work}/ours_{session}.hatchet", "shadow")
        print(f"== session {session}")
        print(json.dumps({"proton": theirs, "protond": ours}, indent=1, sort_keys=True)[:4000])
        problems += [f"session {session}: {p}" for p in compare(theirs, ours)]
        if their_root != our_root:
            problems.append(f"session {session}: ROOT {their_root} (Proton) vs {our_root}")
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
