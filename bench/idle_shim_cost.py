#!/usr/bin/env python3
"""What an idle shim costs a program, and what a session leaves behind once it has ended: the
same program run as separate processes in several set-ups, taking turns round after round (the
order shuffled each round). Each process warms up, times its workload for SECONDS (the first
half), lets the harness do something (a 1 s session over it, or an equal pause), and times it
again (the second half). Always-on keeps the shim loaded in every process between windows, so
the first half is the cost of being on the node at all, and the second half over the first, of
a window that has come and gone.

Workloads (--workload), each timed in chunks and reported as the median chunk:
  launches  small PyTorch operations (a cuBLAS matmul, an add, a layer norm: ~5 launches an
            iteration, launch-bound)
  api       CUDA calls that launch nothing (a stream query): only the CPU's side of each call
  training  tests/gpu/training_check.py's small GPT-2 step with AdamW (eager)

Set-ups:
  none        no shim
  registered  the shim preloaded and registered with a protond that records nothing
  no-daemon   the shim preloaded, no protond to register with (its control connection never opens)
  no-nvtx     as registered, with TRITON_ENABLE_NVTX=0 (the shim takes no NVTX injection)
  after-session  as registered, with a 1 s session (`protonctl start --pid`, as an always-on
              window opens one) between the halves: CUPTI was enabled in the process, then its
              subscription ended

Per round, each set-up's first half over none's, and its second half over its first half over
none's (so the speed of one process against another cancels out); the medians and spreads over
rounds are printed.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    cd bench && python3 idle_shim_cost.py ../bundle [--rounds 8] [--seconds 2]
        [--workload launches|api|training] [--only registered,after-session]
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from gpu_common import TRAINING_LOOP, protond, shim_env, spread

# Each workload: source that defines ITERATIONS (per timed chunk) and iteration().
LAUNCHES = r'''
import torch
x = torch.randn(64, 64, device="cuda")
w = torch.randn(64, 64, device="cuda")
norm = torch.nn.LayerNorm(64).cuda()
ITERATIONS = 50

def iteration():
    return norm(x @ w + 1.0)
'''
# CUDA calls that launch nothing: what a layer between the program and the driver adds to each
# call shows here alone (the CPU's time, no GPU work).
API_CALLS = r'''
import torch
stream = torch.cuda.current_stream()
ITERATIONS = 20

def iteration():
    for _ in range(100):
        stream.query()
'''
TRAINING = TRAINING_LOOP + r'''
ITERATIONS = 1

def iteration():
    training_step(model)
'''

WORKLOADS = {"launches": LAUNCHES, "api": API_CALLS, "training": TRAINING}

PROGRAM = r'''
import statistics, sys, time, torch

def median_iteration(seconds):
    chunks = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        began = time.perf_counter()
        for _ in range(ITERATIONS):
            iteration()
        torch.cuda.synchronize()
        chunks.append((time.perf_counter() - began) / ITERATIONS)
    return statistics.median(chunks)

for _ in range(max(3, 4 * ITERATIONS)):
    iteration()
torch.cuda.synchronize()
before = median_iteration(float(sys.argv[1]))
print("between", flush=True)  # the harness profiles this process now (or waits), then answers
sys.stdin.readline()
after = median_iteration(float(sys.argv[1]))
print(before, after)
'''


def run_once(program, seconds, env, between):
    """The program's median iteration times (before, after) the call between(pid)."""
    process = subprocess.Popen([sys.executable, program, str(seconds)], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    if process.stdout.readline().strip() != "between":
        sys.exit(f"the program failed: {process.communicate()[1][-2000:]}")
    between(process.pid)
    out, err = process.communicate("\n", timeout=120)
    if process.returncode != 0:
        sys.exit(f"the program failed: {err[-2000:]}")
    before, after = out.strip().splitlines()[-1].split()
    return float(before), float(after)


def pause(pid):
    """between: as long as one_session takes, doing nothing."""
    time.sleep(1.3)


def one_session(bundle, socket):
    """between: a 1 s session over the process, waited for until it has ended."""
    def profile(pid):
        subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "start", "--pid", str(pid),
                        "--duration", "1s", "--wait"], check=True, capture_output=True)
    return profile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default="bundle")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=2)
    parser.add_argument("--workload", choices=list(WORKLOADS), default="launches")
    parser.add_argument("--only", help="comma-separated set-ups to run (none is always run)")
    args = parser.parse_args()
    bundle = os.path.abspath(args.bundle)
    work = tempfile.mkdtemp()
    program = os.path.join(work, "program.py")
    with open(program, "w") as f:
        f.write(WORKLOADS[args.workload] + PROGRAM)
    with protond(bundle, work) as socket:
        registered = shim_env(bundle, socket)
        setups = {
            "none": dict(os.environ),
            "registered": registered,
            "no-daemon": shim_env(bundle, os.path.join(work, "nobody.sock")),
            "no-nvtx": dict(registered, TRITON_ENABLE_NVTX="0"),
            "after-session": registered,
        }
        between = {name: one_session(bundle, socket) if name.startswith("after") else pause
                   for name in setups}
        if args.only:
            setups = {name: env for name, env in setups.items()
                      if name == "none" or name in args.only.split(",")}
        ratios = {name: [] for name in setups if name != "none"}
        # Per round, each set-up's (after / before) over none's: how its speed moved from the
        # first half of the process to the second, measured within each process.
        moved = {name: [] for name in ratios}
        none_times = []
        for _ in range(args.rounds):
            order = list(setups)
            random.shuffle(order)
            times = {name: run_once(program, args.seconds, setups[name], between[name])
                     for name in order}
            none_before, none_after = times["none"]
            none_times.append(none_before)
            for name in ratios:
                before, after = times[name]
                ratios[name].append(before / none_before)
                moved[name].append((after / before) / (none_after / none_before))
    print(f"{args.workload}: {args.rounds} rounds of 2 x {args.seconds:g} s per set-up; an "
          f"iteration takes {1e6 * statistics.median(none_times):.1f} us without the shim (median)")
    print("first half of each process, over none's:")
    for name, samples in ratios.items():
        print(f"{name:>15} / none: {spread(samples)}")
    print("second half over first half of the same process, over none's (after-session had a"
          " session in between):")
    for name, samples in moved.items():
        print(f"{name:>15}: {spread(samples)}")


if __name__ == "__main__":
    main()
