#!/usr/bin/env python3
"""Research: what protond's launch callbacks cost on top of bare CUPTI activity, measured inside
one process so that process-to-process noise drops out. A "probe" process switches CUPTI parts on
and off between timed loops (none, activity, activity + driver or runtime or both callback
families, see cupti_probe.cc) and counts the callbacks per launch; a "protond" process alternates
between no session and a running protond session. Configurations are interleaved in rotated
order; each reports the median over rounds of its time relative to "none" in the same round.

Usage (GPU machine): callback_cost.py BUNDLE_DIR PROBE_SO [ROUNDS] [PROCESSES]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gpu_common import protond, shim_env, write_program  # noqa: E402

PROGRAM = r'''
import ctypes, json, os, sys, time
import torch

x = torch.zeros(1024, device="cuda")
def tiny_ops():
    for _ in range(20000):
        x.add_(1.0)
def triton_launches():
    for _ in range(5000):
        add_one[(1,)](x, 1024, BLOCK=1024)
WORKLOADS = {"add_": (tiny_ops, 20000), "triton": (triton_launches, 5000)}
for run, _ in WORKLOADS.values():
    run()
torch.cuda.synchronize()

mode, rounds = sys.argv[1], int(sys.argv[2])
probe = ctypes.CDLL(os.environ["PROBE_SO"])
probe.probe_take_enters.restype = ctypes.c_uint64
if mode == "probe":
    assert probe.probe_subscribe() == 0
    CONFIGS = {"none": 0, "activity": 1, "activity+driver cb": 5, "activity+runtime cb": 9,
               "activity+both cb": 13}
    def switch(parts):
        assert probe.probe_switch(parts) == 0
else:
    shim = ctypes.CDLL(os.environ["PROTOND_SHIM"])
    CONFIGS = {"none": 0, "protond": 1}
    session = ctypes.c_uint64(0)
    def switch(on):
        if session.value:
            assert shim.protond_session_stop(session) == 0
            session.value = 0
        if on:
            assert shim.protond_session_start(b"callback-cost", ctypes.byref(session)) == 0

names = list(CONFIGS)
seconds = {name: {w: [] for w in WORKLOADS} for name in names}
calls = {name: {} for name in names}
for r in range(rounds):
    for name in names[r % len(names):] + names[:r % len(names)]:
        switch(CONFIGS[name])
        for w, (run, launches) in WORKLOADS.items():
            torch.cuda.synchronize()
            probe.probe_take_enters(1), probe.probe_take_enters(2)
            begin = time.perf_counter()
            run()
            torch.cuda.synchronize()
            seconds[name][w].append(time.perf_counter() - begin)
            calls[name][w] = [probe.probe_take_enters(d) / launches for d in (1, 2)]
switch(0)
print("RESULT " + json.dumps({"seconds": seconds, "calls": calls}))
'''


def main():
    bundle, probe = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    processes = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    with protond(bundle, work) as socket:
        for index in range(processes * 2):
            mode = ["probe", "protond"][index % 2]
            env = shim_env(bundle, socket) if mode == "protond" else dict(os.environ)
            env["PROBE_SO"] = probe
            run = subprocess.run([sys.executable, program, mode, str(rounds)], env=env, cwd=work,
                                 capture_output=True, text=True)
            lines = [l for l in run.stdout.splitlines() if l.startswith("RESULT ")]
            if run.returncode != 0 or not lines:
                print(f"{mode} failed:\n{run.stderr[-2000:]}")
                continue
            report(f"process {index + 1} ({mode}), {rounds} rounds", json.loads(lines[0][7:]))


def report(title, result):
    seconds, calls = result["seconds"], result["calls"]
    print(f"== {title}: us per launch median [min-max]; x none = median over rounds of "
          f"time / time of 'none' in the same round; API-enter callbacks per launch (drv/rt)")
    for name, by_workload in seconds.items():
        row = f"{name:22}"
        for w, samples in by_workload.items():
            launches = 20000 if w == "add_" else 5000
            us = [s / launches * 1e6 for s in samples]
            paired = [s / b for s, b in zip(samples, seconds["none"][w])]
            drv, rt = calls[name][w]
            row += (f" | {w} {statistics.median(us):5.2f} [{min(us):.2f}-{max(us):.2f}] "
                    f"x none {statistics.median(paired):.3f} cb {drv:.2f}/{rt:.2f}")
        print(row)


if __name__ == "__main__":
    main()
