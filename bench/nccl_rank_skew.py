#!/usr/bin/env python3
"""How far apart two ranks' NCCL kernels start and end, call by call, from a Chrome trace that
`protonctl export SESSION --format chrome -o TRACE` wrote for a two-GPU job's trace session.

The n-th NCCL kernel of one device is paired with the n-th of the other (launch order, as
`protonctl job` pairs them). A collective's kernels end together on every rank, so the end
differences say how well the ranks' clocks agree; the start differences are the lateness
`protonctl job` reports (docs/jobs.md, "On the GPU").

Usage: nccl_rank_skew.py TRACE.json
"""
import json
import statistics
import sys


def nccl_kernels_by_device(trace):
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    by_device = {}
    for event in events:
        if event.get("ph") == "X" and event.get("cat") == "kernel" and "nccl" in event["name"]:
            start = event["ts"]
            by_device.setdefault(event["args"]["device_id"], []).append((start, start + event["dur"]))
    return {device: sorted(kernels) for device, kernels in by_device.items()}


def describe(name, differences_us):
    ms = [d / 1e3 for d in differences_us]
    return (f"{name} median {statistics.median(ms):.3f} ms "
            f"[{min(ms):.3f} .. {max(ms):.3f}]")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(sys.argv[1]) as f:
        by_device = nccl_kernels_by_device(json.load(f))
    if len(by_device) != 2:
        sys.exit(f"{sys.argv[1]}: NCCL kernels on {len(by_device)} devices; this needs exactly two")
    (first, a), (second, b) = sorted(by_device.items())
    if len(a) != len(b):
        print(f"note: {len(a)} NCCL kernels on device {first}, {len(b)} on device {second}; "
              f"the first {min(len(a), len(b))} are paired")
    pairs = list(zip(a, b))
    print(f"{len(pairs)} calls, device {second} minus device {first}:")
    print("  " + describe("start", [y[0] - x[0] for x, y in pairs]))
    print("  " + describe("end  ", [y[1] - x[1] for x, y in pairs]))


if __name__ == "__main__":
    main()
