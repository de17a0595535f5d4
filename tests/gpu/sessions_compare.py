#!/usr/bin/env python3
"""Several sessions open at once, under Triton's own Proton and under protond.profiler: one
program (changing only its import) opens session "a", then "b", deactivates "a" for a while,
finalizes "a", does more work, and finalizes "b". (No scope spans a start or an activate: Proton
3.6 then fails the scope's exit with "RuntimeError: Context stack is empty"; protond does not.) Each session's .hatchet file must
have the same paths, counts and metric names under both profilers, and kernel times within 5%:
each session holds the kernels of its own window, and nothing else.

The kernels of each window (EXPECTED) must be in both profilers' files, and none of the other
windows': two empty files do not agree.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/sessions_compare.py BUNDLE_DIR
    tests/gpu/sessions_compare.py --files DIR  (theirs_a.hatchet ... ours_b.hatchet kept before)
Exit code 0 when the files agree; the comparison is printed either way.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import hatchet_check  # noqa: E402
from compare_python_api import compare, flatten, lacking, report  # noqa: E402
from gpu_common import protond, write_program  # noqa: E402

# What each session recorded (tests/gpu/hatchet_check.py's rules): "a" from its start to its
# finalize, less the time it was deactivated (b_only); "b" from its start to the end. The torch
# kernels are x.mul_ (PyTorch's MulFunctor).
EXPECTED = {
    "a": ["a_only/add_one=5", "both/add_one=7", "both/~mul=7", "both/*=14",
          "both_again/~mul=4", "both_again/*=4", "b_only/**=0", "after_a/**=0", "*=0"],
    "b": ["both/add_one=7", "both/~mul=7", "both/*=14", "b_only/add_one=3", "b_only/*=3",
          "both_again/~mul=4", "both_again/*=4", "after_a/add_one=2", "after_a/*=2",
          "a_only/**=0", "*=0"],
}

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


def check_files(work):
    """The differences between the profilers' files of each session in `work`, and what they
    lack of EXPECTED."""
    problems = []
    for session in ("a", "b"):
        theirs_path, ours_path = (f"{work}/{who}_{session}.hatchet" for who in ("theirs", "ours"))
        try:
            problems += [f"session {session}: {p}"
                         for p in lacking(theirs_path, ours_path, EXPECTED[session])]
        except hatchet_check.ProfileError as error:
            problems.append(f"session {session}: {error}")
            continue
        theirs, their_root, _ = flatten(theirs_path, "shadow")
        ours, our_root, _ = flatten(ours_path, "shadow")
        print(f"== session {session}")
        print(json.dumps({"proton": theirs, "protond": ours}, indent=1, sort_keys=True)[:4000])
        problems += [f"session {session}: {p}" for p in compare(theirs, ours)]
        if their_root != our_root:
            problems.append(f"session {session}: ROOT {their_root} (Proton) vs {our_root}")
    return problems


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--files":
        return report(check_files(sys.argv[2]))
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        subprocess.run([sys.executable, program, "proton", "theirs"], check=True, cwd=work)
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        subprocess.run([sys.executable, program, "protond", "ours"], check=True, cwd=work,
                       env=env)
    return report(check_files(work))


if __name__ == "__main__":
    sys.exit(main())
