#!/usr/bin/env python3
"""What NCCL's profiler plugin in protond's shim costs a DDP job (issue 32): steps per second of
tests/gpu/ddp_train.py on two GPUs (torchrun), in paired rounds, each round running every set-up
once in a shuffled order:

  none        torchrun alone, nothing preloaded
  plugin-off  `protonctl run` (a tree session recording the job) with NCCL_PROFILER_PLUGIN=none:
              protond's shim without the plugin
  plugin-on   `protonctl run`, the shim's plugin recording every collective call

Prints each round's rank-0 steps/s, then per set-up the median and range of its ratio to none's
rate in the same round (1.00 is free; below 1 is slower).

Usage: nccl_plugin_cost.py BUNDLE [--rounds N] [--steps N] [--model tiny|small]
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "tests", "gpu", "ddp_train.py")
SETUPS = ["none", "plugin-off", "plugin-on"]


def torchrun():
    found = subprocess.run(["sh", "-c", "command -v torchrun"], capture_output=True, text=True)
    return found.stdout.strip() or "torchrun"


def rate_of(output):
    for line in output.splitlines():
        if line.startswith("RATE 0 "):
            return float(line.split()[2])
    raise RuntimeError("no RATE line from rank 0 in:\n" + output[-3000:])


def run(setup, bundle, socket, args, round_index):
    env = dict(os.environ, PROTOND_TEST_MODEL=args.model, PROTOND_TEST_STEPS=str(args.steps),
               PYTHONPATH=os.path.join(bundle, "python"))
    job = [torchrun(), "--nproc_per_node", "2", TRAIN]
    if setup == "none":
        command = job
    else:
        if setup == "plugin-off":
            env["NCCL_PROFILER_PLUGIN"] = "none"
        command = [os.path.join(bundle, "bin", "protonctl"), "--socket", socket, "run", "--name",
                   f"{setup}-{round_index}", "--"] + job
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{setup}: exit code {done.returncode}\n{done.stderr[-3000:]}")
    return rate_of(done.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--model", default="tiny")
    args = parser.parse_args()
    bundle = os.path.abspath(args.bundle)
    with tempfile.TemporaryDirectory() as work:
        socket = os.path.join(work, "protond.sock")
        daemon = subprocess.Popen(
            [os.path.join(bundle, "bin", "protond"), "--socket", socket, "--state-dir",
             os.path.join(work, "state")], stderr=open(os.path.join(work, "protond.log"), "w"))
        try:
            for _ in range(50):
                if os.path.exists(socket):
                    break
                time.sleep(0.1)
            else:
                sys.exit("protond made no socket in 5 s")
            ratios = {setup: [] for setup in SETUPS}
            for round_index in range(args.rounds):
                order = SETUPS[:]
                random.shuffle(order)
                rates = {setup: run(setup, bundle, socket, args, round_index) for setup in order}
                print(f"round {round_index + 1}: " + ", ".join(
                    f"{setup} {rates[setup]:.1f} steps/s" for setup in SETUPS), flush=True)
                for setup in SETUPS:
                    ratios[setup].append(rates[setup] / rates["none"])
        finally:
            daemon.terminate()
            daemon.wait()
    print(f"steps/s over none's in the same round, {args.rounds} rounds, model {args.model}, "
          f"{args.steps} steps: median [min-max]")
    for setup in SETUPS[1:]:
        values = ratios[setup]
        print(f"  {setup:11s} {statistics.median(values):.3f} [{min(values):.3f}-{max(values):.3f}]")


if __name__ == "__main__":
    main()
