#!/usr/bin/env python3
"""What profiling costs a training loop: protond.profiler, Triton's Proton (only the import
differs, each with the contexts asked for) and torch.profiler, each against no profiler. The
training job is tests/gpu/training_check.py's: a small GPT-2 built from transformers' config
(random init, nothing downloaded) trained with AdamW, eagerly and under torch.compile; a workload
is 10 steps, each in a scope named "step" (torch.profiler: record_function), which without a
profiler returns at once.

Measured inside each process with gpu_common.PAIRED_ROUNDS, as bench/gpu_overhead.py does: every
round times each workload with the profiler off and on (order alternating), a sample is on / off
within the round, and one start/stop cycle before the rounds keeps one-time costs out (CUPTI's
first enable; torch.compile compiles in the untimed first run before it). On is start(name,
context=CONTEXT) ... finalize() for protond and Proton, and inside torch.profiler.profile (CPU and
CUDA activities) for torch; "stop" is what finalize() or leaving the profile costs the program.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    cd bench && python3 training_overhead.py ../bundle [ROUNDS] [PROCESSES] [--contexts shadow,python] [--profilers protond,proton,torch] [--workloads eager,compile]
"""
import argparse
import os
import sys
import tempfile

from gpu_common import (PAIRED_ROUNDS, TORCH_PROFILER, TRAINING_LOOP, collect_paired,
                        print_paired, protond, write_program)

PROFILERS = ["protond", "proton", "torch"]
CONTEXTS = ["shadow", "python"]
WORKLOADS = ["eager", "compile"]

# argv[1] is a row's name: "protond shadow", "proton python", "torch". The profiler is imported
# before the model is made, as in a user's script.
PROGRAM = r'''
import os, sys, torch
profiler, _, context = sys.argv[1].partition(" ")
if profiler == "torch":
    scope = torch.profiler.record_function
    start, stop = torch_profiler_start, torch_profiler_stop
else:
    if profiler == "proton":
        import triton.profiler as proton
    else:
        import protond.profiler as proton
    scope = proton.scope
    def start():
        # protond.profiler returns None rather than raising when it cannot record (no shim, no
        # daemon): a row measured so would read as free.
        assert proton.start("bench", context=context) is not None, "the profiler did not start"
    stop = proton.finalize
''' + TRAINING_LOOP + r'''
def training(forward):
    def steps():
        for _ in range(10):
            with scope("step"):
                training_step(forward)
    return steps

# torch.compile compiles on the first call, run_paired_rounds' untimed warm-up.
WORKLOADS = {w: training(model if w == "eager" else torch.compile(model))
             for w in os.environ["BENCH_WORKLOADS"].split(",")}
run_paired_rounds(start, stop, WORKLOADS, int(sys.argv[2]))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default="bundle")
    parser.add_argument("rounds", nargs="?", type=int, default=15)
    parser.add_argument("processes", nargs="?", type=int, default=2)
    parser.add_argument("--contexts", default=",".join(CONTEXTS))
    parser.add_argument("--profilers", default=",".join(PROFILERS))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    args = parser.parse_args()
    chosen = {}
    for option, known in (("contexts", CONTEXTS), ("profilers", PROFILERS),
                          ("workloads", WORKLOADS)):
        chosen[option] = getattr(args, option).split(",")
        if not set(chosen[option]) <= set(known):
            parser.error(f"--{option} takes some of {','.join(known)}")
    names = []
    for p in chosen["profilers"]:
        names += ["torch"] if p == "torch" else [f"{p} {c}" for c in chosen["contexts"]]
    bundle = os.path.abspath(args.bundle)
    work = tempfile.mkdtemp()
    program = write_program(work, PAIRED_ROUNDS + TORCH_PROFILER + PROGRAM)
    with protond(bundle, work) as socket:
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket,
                   BENCH_WORKLOADS=",".join(chosen["workloads"]))
        ratios, stops = collect_paired(program, names, chosen["workloads"], args.rounds,
                                       args.processes, lambda name: env, work)
    print(f"{args.processes} processes per profiler x {args.rounds} rounds of 10 training steps; "
          "on / off in the same round: median [min-max]")
    print_paired(names, chosen["workloads"], ratios, stops, "stop")


if __name__ == "__main__":
    main()
