#!/usr/bin/env python3
"""What an idle shim costs a program that launches many small GPU operations: the same program
run as separate processes in several set-ups, taking turns round after round (the order shuffled
each round), each reporting the median time of a chunk of small PyTorch operations (a cuBLAS
matmul, an add, a layer norm: ~5 launches an iteration, launch-bound). Always-on keeps the shim
loaded in every process between windows, so this is the cost of being on the node at all.

Set-ups:
  none        no shim
  registered  the shim preloaded and registered with a protond that records nothing
  no-daemon   the shim preloaded, no protond to register with (its control connection never opens)
  no-nvtx     as registered, with TRITON_ENABLE_NVTX=0 (the shim takes no NVTX injection)

Per round, each set-up's time over none's; the medians and spreads over rounds are printed.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    cd bench && python3 idle_shim_cost.py ../bundle [--rounds 8] [--seconds 2]
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile

from gpu_common import protond, shim_env, spread

PROGRAM = r'''
import statistics, sys, time, torch
x = torch.randn(64, 64, device="cuda")
w = torch.randn(64, 64, device="cuda")
norm = torch.nn.LayerNorm(64).cuda()

def iteration():
    return norm(x @ w + 1.0)

for _ in range(200):
    iteration()
torch.cuda.synchronize()
chunks = []
end = time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < end:
    began = time.perf_counter()
    for _ in range(200):
        iteration()
    torch.cuda.synchronize()
    chunks.append((time.perf_counter() - began) / 200)
print(statistics.median(chunks))
'''


def run_once(program, seconds, env):
    done = subprocess.run([sys.executable, program, str(seconds)], env=env, capture_output=True,
                          text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"the program failed: {done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default="bundle")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=2)
    args = parser.parse_args()
    bundle = os.path.abspath(args.bundle)
    work = tempfile.mkdtemp()
    program = os.path.join(work, "program.py")
    with open(program, "w") as f:
        f.write(PROGRAM)
    with protond(bundle, work) as socket:
        registered = shim_env(bundle, socket)
        setups = {
            "none": dict(os.environ),
            "registered": registered,
            "no-daemon": shim_env(bundle, os.path.join(work, "nobody.sock")),
            "no-nvtx": dict(registered, TRITON_ENABLE_NVTX="0"),
        }
        ratios = {name: [] for name in setups if name != "none"}
        none_times = []
        for _ in range(args.rounds):
            order = list(setups)
            random.shuffle(order)
            times = {name: run_once(program, args.seconds, setups[name]) for name in order}
            none_times.append(times["none"])
            for name in ratios:
                ratios[name].append(times[name] / times["none"])
    print(f"{args.rounds} rounds of {args.seconds:g} s per set-up; an iteration (5 launches) "
          f"takes {1e6 * statistics.median(none_times):.1f} us without the shim (median)")
    for name, samples in ratios.items():
        print(f"{name:>11} / none: {spread(samples)}")


if __name__ == "__main__":
    main()
