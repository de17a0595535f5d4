#!/usr/bin/env python3
"""What Proton's Python API costs a program, with Triton's Proton and with protond.profiler (the
same program, only the import differs), with the Triton launch hook on (start(hook="triton")):
200 steps of 100 tiny torch ops (add_ on 1k floats), each step in a scope; 5k small Triton
launches in 50 scopes, of a kernel without launch_metadata and of one whose launch_metadata
renames it and gives it `bytes`; and what finalize() costs.

Measured inside each process with gpu_common.PAIRED_ROUNDS, as bench/gpu_overhead.py does: on
is start() ... finalize(). Without a profiler the scope calls return at once in both.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    cd bench && python3 python_api_overhead.py ../bundle [ROUNDS] [PROCESSES]
BENCH_CONTEXT=python in the environment runs every session with context="python".
"""
import os
import sys
import tempfile

from gpu_common import PAIRED_ROUNDS, collect_paired, print_paired, protond, write_program

# protond-nohook: protond.profiler without hook="triton", to see what the hook itself costs.
APIS = ["proton", "protond", "protond-nohook"]
WORKLOADS = ["add_ in scopes", "triton in scopes", "triton+metadata in scopes"]

PROGRAM = r'''
import os, sys, torch
if sys.argv[1] == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton
HOOK = None if sys.argv[1] == "protond-nohook" else "triton"
CONTEXT = os.environ.get("BENCH_CONTEXT", "shadow")

def start():
    proton.start("bench", hook=HOOK, context=CONTEXT)

def add_one_metadata(grid, metadata, args):
    return {"name": f"add_one_{args['n']}", "bytes": 8 * args["n"]}

@triton.jit(launch_metadata=add_one_metadata)
def add_one_named(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) + 1)

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

def triton_launches_with_metadata():
    for _ in range(50):
        with proton.scope("launches"):
            for _ in range(100):
                add_one_named[(1,)](x, 1024, BLOCK=1024)

WORKLOADS = {"add_ in scopes": tiny_ops, "triton in scopes": triton_launches,
             "triton+metadata in scopes": triton_launches_with_metadata}

run_paired_rounds(start, proton.finalize, WORKLOADS, int(sys.argv[2]))
'''


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    processes = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    work = tempfile.mkdtemp()
    program = write_program(work, PAIRED_ROUNDS + PROGRAM)
    with protond(bundle, work) as socket:
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        ratios, finalizes = collect_paired(program, APIS, WORKLOADS, rounds, processes,
                                           lambda name: env, work)
    print(f"{processes} processes per API x {rounds} rounds; on / off in the same round: "
          "median [min-max]")
    print_paired(APIS, WORKLOADS, ratios, finalizes, "finalize")


if __name__ == "__main__":
    main()
