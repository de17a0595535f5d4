#!/usr/bin/env python3
"""What Proton's Python API costs a program, with Triton's Proton and with protond.profiler (the
same program, only the import differs): 200 steps of 100 tiny torch ops (add_ on 1k floats), each
step in a scope, and 5k small Triton launches in 50 scopes; and what finalize() costs.

Measured inside each process, as bench/gpu_overhead.py does: every round times the workloads
with profiling off and on (order alternating; on = start() ... finalize()), and a sample is the
ratio on / off within the round. Without a profiler the scope calls return at once in both.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    cd bench && python3 python_api_overhead.py ../bundle [ROUNDS] [PROCESSES]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from gpu_common import protond, write_program

APIS = ["proton", "protond"]
WORKLOADS = ["add_ in scopes", "triton in scopes"]

PROGRAM = r'''
import json, sys, time, torch
if sys.argv[1] == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton

x = torch.zeros(1024, device="cuda")

def tiny_ops():
    for _ in range(200):
        with proton.scope("step"):
            for _ in range(100):
                x.add_(1.0)

def triton_launches():
    for _ in range(50):
        with proton.scope("launches"):
            for _ in range(100):
                add_one[(1,)](x, 1024, BLOCK=1024)

WORKLOADS = {"add_ in scopes": tiny_ops, "triton in scopes": triton_launches}

def timed(workload):
    torch.cuda.synchronize()
    begin = time.perf_counter()
    workload()
    torch.cuda.synchronize()
    return time.perf_counter() - begin

for workload in WORKLOADS.values():
    workload()
proton.start("warmup")
for workload in WORKLOADS.values():
    workload()
proton.finalize()
rounds = int(sys.argv[2])
ratios = {name: [] for name in WORKLOADS}
finalizes = []
for r in range(rounds):
    seconds = {}
    for state in (("off", "on") if r % 2 == 0 else ("on", "off")):
        if state == "on":
            proton.start("bench")
        for name, workload in WORKLOADS.items():
            seconds[name, state] = timed(workload)
        if state == "on":
            begin = time.perf_counter()
            proton.finalize()
            finalizes.append(time.perf_counter() - begin)
    for name in WORKLOADS:
        ratios[name].append(seconds[name, "on"] / seconds[name, "off"])
print("RESULT " + json.dumps({"ratios": ratios, "finalizes": finalizes}))
'''


def spread(samples, scale=1.0, digits=3):
    return (f"{statistics.median(samples) * scale:.{digits}f} "
            f"[{min(samples) * scale:.{digits}f}-{max(samples) * scale:.{digits}f}]")


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    processes = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    ratios = {api: {w: [] for w in WORKLOADS} for api in APIS}
    finalizes = {api: [] for api in APIS}
    with protond(bundle, work) as socket:
        for index in range(processes):
            for api in APIS[index % 2:] + APIS[:index % 2]:
                env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
                run = subprocess.run([sys.executable, program, api, str(rounds)], env=env,
                                     cwd=work, capture_output=True, text=True)
                lines = [l for l in run.stdout.splitlines() if l.startswith("RESULT ")]
                if run.returncode != 0 or not lines:
                    print(f"{api} failed:\n{run.stderr[-2000:]}")
                    continue
                result = json.loads(lines[0][7:])
                for w in WORKLOADS:
                    ratios[api][w] += result["ratios"][w]
                finalizes[api] += result["finalizes"]
    print(f"{processes} processes per API x {rounds} rounds; on / off in the same round: "
          "median [min-max]")
    print(f"{'':9}" + "".join(f"{w:>30}" for w in WORKLOADS) + f"{'finalize (ms)':>26}")
    for api in APIS:
        row = "".join(f"{spread(ratios[api][w]):>30}" if ratios[api][w] else f"{'-':>30}"
                      for w in WORKLOADS)
        row += f"{spread(finalizes[api], 1e3, 1):>26}" if finalizes[api] else f"{'-':>26}"
        print(f"{api:9}{row}")


if __name__ == "__main__":
    main()
