#!/usr/bin/env python3
"""What the preloaded shim costs a short process: /bin/true run with no shim, with the shim, and
with the shim told to stay off (PROTOND_DISABLE=1), in interleaved rounds (the order shuffled in
each round), so that the machine's drift falls on all three alike.

Usage: shim_startup.py SHIM_LIBRARY [ROUNDS] [--program PATH] [--baseline OTHER_SHIM]

--baseline adds another build of the shim (an earlier commit's) to the same rounds.

Prints each variant's median wall time with its 10th-90th percentile, and the median of the
per-round differences against no shim (the paired figure the issue's 1 ms goal is about).
No daemon is needed: the process ends long before the shim would look for one.
"""

import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time


def run_once(program, env):
    start = time.perf_counter()
    subprocess.run([program], env=env, check=True)
    return (time.perf_counter() - start) * 1000


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shim", help="libprotond_shim.so to preload")
    parser.add_argument("rounds", type=int, nargs="?", default=80)
    parser.add_argument("--program", default="/bin/true")
    parser.add_argument("--baseline", help="another libprotond_shim.so, measured in the same rounds")
    args = parser.parse_args()
    if not os.path.isfile(args.shim):
        parser.error(f"no shim at {args.shim}")
    with tempfile.TemporaryDirectory() as state:
        base = dict(os.environ, PROTOND_SOCKET=os.path.join(state, "no-protond.sock"))
        base.pop("LD_PRELOAD", None)
        shim = os.path.abspath(args.shim)
        variants = {
            "no shim": base,
            "shim": dict(base, LD_PRELOAD=shim),
            "shim, PROTOND_DISABLE=1": dict(base, LD_PRELOAD=shim, PROTOND_DISABLE="1"),
        }
        if args.baseline:
            variants["baseline shim"] = dict(base, LD_PRELOAD=os.path.abspath(args.baseline))
        for env in variants.values():  # warm the page cache before measuring
            run_once(args.program, env)
        samples = {name: [] for name in variants}
        for _ in range(args.rounds):
            order = list(variants)
            random.shuffle(order)
            for name in order:
                samples[name].append(run_once(args.program, variants[name]))
    print(f"{args.program}, {args.rounds} interleaved rounds, ms: median [p10-p90]")
    for name, values in samples.items():
        line = (f"  {name:<26} {statistics.median(values):6.2f} "
                f"[{percentile(values, 0.1):.2f}-{percentile(values, 0.9):.2f}]")
        if name != "no shim":
            paired = [a - b for a, b in zip(values, samples["no shim"])]
            line += f"   over no shim: {statistics.median(paired):+.2f}"
        print(line)


if __name__ == "__main__":
    main()
