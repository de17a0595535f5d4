#!/usr/bin/env python3
"""Research: where the per-launch cost of protond's GPU tracer goes for Triton launches (driver
cuLaunchKernelEx). Each configuration runs in its own process (CUPTI state does not reset
cleanly), in interleaved rounds; each sample is the median of 5 timed loops of 5,000 launches.

Usage (GPU machine): triton_launch_cost.py BUNDLE_DIR PROBE_SO [ROUNDS]
"""
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gpu_common import protond, shim_env, write_program  # noqa: E402

CONFIGS = {  # name: probe parts (see cupti_probe.cc), or "protond"
    "none": 0,
    "activity": 1,
    "activity+flush period": 1 | 16,
    "activity+cuLaunchKernelEx cb": 1 | 2,
    "activity+driver prefixes": 1 | 4,
    "activity+runtime prefixes": 1 | 8,
    "activity+driver+runtime": 1 | 4 | 8,
    "activity+driver+runtime+flush": 1 | 4 | 8 | 16,
    "protond": "protond",
}

PROGRAM = r'''
import ctypes, os, statistics, sys, time
import torch

x = torch.zeros(1024, device="cuda")
def loop():
    for _ in range(5000):
        add_one[(1,)](x, 1024, BLOCK=1024)
    torch.cuda.synchronize()
loop()
config = sys.argv[1]
if config == "protond":
    shim = ctypes.CDLL(os.environ["PROTOND_SHIM"])
    session = ctypes.c_uint64(0)
    assert shim.protond_session_start(b"probe", ctypes.byref(session)) == 0
elif int(config):
    assert ctypes.CDLL(os.environ["PROBE_SO"]).probe_start(int(config)) == 0
loop()
samples = []
for _ in range(5):
    begin = time.perf_counter()
    loop()
    samples.append(time.perf_counter() - begin)
print("US_PER_LAUNCH", statistics.median(samples) / 5000 * 1e6)
'''


def main():
    bundle, probe = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    results = {name: [] for name in CONFIGS}
    with protond(bundle, work) as socket:
        for _ in range(rounds):
            for name, parts in CONFIGS.items():
                env = shim_env(bundle, socket) if parts == "protond" else dict(os.environ)
                env["PROBE_SO"] = probe
                out = subprocess.run([sys.executable, program, str(parts)], env=env,
                                     capture_output=True, text=True)
                value = [l.split()[1] for l in out.stdout.splitlines()
                         if l.startswith("US_PER_LAUNCH")]
                if value:
                    results[name].append(float(value[0]))
                else:
                    print(name, "failed:", out.stderr[-1500:])
    print(f"{'configuration':34} us/launch: median [min-max] over {rounds} rounds")
    for name, samples in results.items():
        if samples:
            print(f"{name:34} {statistics.median(samples):7.2f} [{min(samples):.2f}-"
                  f"{max(samples):.2f}]")


if __name__ == "__main__":
    main()
