#!/usr/bin/env python3
"""PC sampling of a Triton kernel, under protond.profiler's mode="pcsampling" and, for comparison,
under Triton's own Proton. The kernel chases indices through a random cycle far larger than the
caches, so its warps wait on memory at the line that loads the next index. protond's .hatchet
must put the kernel's samples on that line, with long_scoreboard its main reason, and count every
sample once (the reasons of a line add up to its num_samples; stalled <= samples). Both
profilers' heaviest lines are printed side by side.

Usage (on a GPU machine with Triton, from a bundle made by scripts/bundle.sh):
    tests/gpu/pc_sampling_triton.py BUNDLE_DIR [--no-proton]
Exit code 0 when protond's samples are where they must be.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hatchet_check  # noqa: E402
from gpu_common import protond, write_program  # noqa: E402

PROGRAM = r'''
import sys, torch
if sys.argv[1] == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton

@triton.jit
def chase(next_ptr, out_ptr, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    at = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for _ in range(STEPS):
        at = tl.load(next_ptr + at)  # CHASE
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), at)

n = 1 << 26
order = torch.randperm(n, device="cuda")
nxt = torch.empty(n, dtype=torch.int64, device="cuda")
nxt[order] = order.roll(-1)
nxt = nxt.to(torch.int32)
out = torch.empty(132 * 128, dtype=torch.int32, device="cuda")
torch.cuda.synchronize()
# Started before the kernel's first call: its module loads (and its cubin is seen) while sampling.
proton.start(sys.argv[2], mode="pcsampling")
with proton.scope("chasing"):
    for _ in range(200):
        chase[(132,)](nxt, out, STEPS=1024, BLOCK=128)
torch.cuda.synchronize()
proton.finalize()
'''


def lines_of(hatchet_path):
    """{frame name: metrics} of every node with samples of its own."""
    with open(hatchet_path) as f:
        roots = json.load(f)
    found = {}
    stack = [roots[0]]
    while stack:
        node = stack.pop()
        metrics = node.get("metrics", {})
        if "num_samples" in metrics and not node.get("children"):
            found[node["frame"]["name"]] = metrics
        stack.extend(node.get("children", []))
    return found


def top(lines, count=5):
    return sorted(lines.items(), key=lambda item: -item[1].get("num_samples", 0))[:count]


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    chase_line = next(number for number, text in enumerate(open(program), 1) if "# CHASE" in text)
    with protond(bundle, work) as socket:
        theirs = None if "--no-proton" in sys.argv else subprocess.run(
            [sys.executable, program, "proton", "theirs"], cwd=work, capture_output=True,
            text=True)
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        ours = subprocess.run([sys.executable, program, "protond", "ours"], cwd=work, env=env,
                              capture_output=True, text=True)
        print(ours.stderr[-2000:], end="")
        subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "top", "1", "--stalls",
                        "-n", "5"])
        subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "sessions"])
        subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "tree", "1", "-d", "3"])
        # The chase kernel's sampled SASS instructions, with their text from nvdisasm.
        sass = subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "tree", "1", "-f",
                               "sass", "-i", "chase", "-m", "num_samples"],
                              capture_output=True, text=True)
        print(sass.stdout[-3000:], sass.stderr[-1000:], end="")
    if theirs is None:
        pass
    elif theirs.returncode != 0:
        print(f"Proton failed (shown for comparison only):\n{theirs.stderr[-1500:]}")
    else:
        print("Proton's heaviest lines:")
        for name, metrics in top(lines_of(os.path.join(work, "theirs.hatchet"))):
            print(f"  {metrics.get('num_samples')} samples  {name}")
    if ours.returncode != 0:
        print(f"FAIL: the program failed under protond (exit code {ours.returncode}):\n"
              f"{ours.stdout[-1000:]}{ours.stderr[-2000:]}")
        return 1
    lines = lines_of(os.path.join(work, "ours.hatchet"))
    print("protond's heaviest lines:")
    for name, metrics in top(lines):
        print(f"  {metrics['num_samples']} samples  {name}")
    # The 200 launches, each sampled (tests/gpu/hatchet_check.py's rule).
    failures = hatchet_check.failures(
        hatchet_check.launches(hatchet_check.load(os.path.join(work, "ours.hatchet"))),
        ["chasing/chase=200"], "protond's file")
    total = sum(m["num_samples"] for m in lines.values())
    chase = {name: m for name, m in lines.items() if name.endswith(f":{chase_line}@chase")}
    if not chase:
        failures.append(f"no samples on the load line {chase_line}")
    for name, metrics in chase.items():
        reasons = {k: v for k, v in metrics.items() if k.startswith("stalled_")}
        main_reason = max(reasons, key=reasons.get)
        if main_reason != "stalled_long_scoreboard":
            failures.append(f"{name}: main reason {main_reason}, not stalled_long_scoreboard")
        if metrics["num_samples"] < 0.5 * total:
            failures.append(f"{name} holds {metrics['num_samples']} of {total} samples")
    for name, metrics in lines.items():
        reasons = sum(v for k, v in metrics.items() if k.startswith("stalled_"))
        if reasons != metrics["num_samples"] or \
                metrics.get("num_stalled_samples", 0) > metrics["num_samples"]:
            failures.append(f"{name}: counts do not add up: {metrics}")
    if sass.returncode != 0 or "  LDG" not in sass.stdout:
        failures.append("tree -f sass shows no global load (LDG) among chase's instructions")
    if "without SASS text" in sass.stdout:
        failures.append("tree -f sass left instructions without their text")
    for failure in failures:
        print("FAIL:", failure)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
