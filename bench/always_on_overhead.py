#!/usr/bin/env python3
"""What `protond --always-on` costs a training loop: tests/gpu/training_check.py's small GPT-2
(AdamW) trained by PAIRS pairs of processes that take turns on the GPU, CHUNK seconds each: in
each pair one with the shim preloaded and registered with an always-on protond, one without
protond. Each step's wall-clock start and length are kept.

Always-on windows open at multiples of the period on the wall clock (docs/always-on.md), so the
profiled processes' steps are told apart without asking the daemon: "in a window" when they
overlap [k * period, k * period + window + 0.3 s] (the tail: the window's start reaches the shim
over its control connection and its stop at the next commit interval), "idle" otherwise. From
the medians of step times:
  - idle cost: per round of turns, the profiled processes' idle steps over the unprofiled
    processes' steps (each side the median of its processes' medians: the speed of one process
    differs from another's by more than the idle shim could cost, so one pair decides nothing);
  - window cost: a process's steps in a window over its idle steps of the same turn, per window;
  - at the policy: idle * (1 + window / period * (window cost - 1)), what the steps per second lose
    over a long run; the issue's goal at the default policy (2 s every 60 s) is within 1%.
A window whose start fell in another process's turn records nothing and is not counted. The
number of window sessions protond stored is printed as a check that windows were opened.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    cd bench && python3 always_on_overhead.py ../bundle [SECONDS] [--window 2] [--period 60]
        [--chunk 5] [--workload eager|compile] [--pairs 2] [--views] [--control]

--views also prints what `protonctl history` and `protonctl tree --since` (a range of windows as
one tree, and the second half of the run against the first) show of the first profiled process's
windows, before protond stops: a check that they read real GPU windows.

--control runs the "profiled" processes without the shim too (an A/A run): its idle cost is the
noise floor of the comparison between processes, against which the idle cost of a real run is
read.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from gpu_common import TRAINING_LOOP, protond, shim_env, spread, write_program

WINDOW_TAIL_S = 0.3

# Told on stdin how many seconds to train ("quit": write the steps to argv[1] and end), it
# answers "done" on stdout after each turn.
PROGRAM = "import json, sys, time\n" + TRAINING_LOOP + r'''
forward = model if sys.argv[2] == "eager" else torch.compile(model)
for _ in range(3):  # compiles, and the first steps' one-time costs
    training_step(forward)
torch.cuda.synchronize()
steps = []  # (wall-clock start, seconds)
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "quit":
        break
    end = time.perf_counter() + float(line)
    while time.perf_counter() < end:
        wall, began = time.time(), time.perf_counter()
        training_step(forward)
        torch.cuda.synchronize()
        steps.append((wall, time.perf_counter() - began))
    print("done", flush=True)
with open(sys.argv[1], "w") as f:
    json.dump(steps, f)
'''


def start_trainer(program, work, name, workload, env):
    trainer = subprocess.Popen([sys.executable, program, f"{work}/{name}.json", workload],
                               env=env, cwd=work, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    if trainer.stdout.readline().strip() != "ready":
        sys.exit(f"{name}: the training program did not start")
    return trainer


def take_turns(trainers, seconds, chunk):
    """Rounds of turns of `chunk` seconds, one trainer after the other, until `seconds` have
    passed; how many turns each trainer had."""
    turns = {name: 0 for name in trainers}
    for _ in range(int(seconds / chunk / len(trainers))):
        for name, trainer in trainers.items():
            trainer.stdin.write(f"{chunk}\n")
            trainer.stdin.flush()
            if trainer.stdout.readline().strip() != "done":
                sys.exit(f"{name}: the training program ended early")
            turns[name] += 1
    return turns


def in_window(start, length, window, period):
    first = int(start // period)
    for k in (first, first + 1):
        if start < k * period + window + WINDOW_TAIL_S and start + length > k * period:
            return True
    return False


def split_turns(steps, chunk_count):
    """The steps of each turn: a gap longer than a step between two steps is a turn change."""
    turns, current = [], []
    for step in steps:
        if current and step[0] - (current[-1][0] + current[-1][1]) > 0.5:
            turns.append(current)
            current = []
        current.append(step)
    turns.append(current)
    return turns if len(turns) == chunk_count else None


def show_views(bundle, socket, seconds):
    """protonctl's views of the first profiled process's windows, each command and its output."""
    half = f"{int(seconds / 2)}s"
    select = ["--command", "profiled-1"]
    for command in (["history", *select],
                    ["tree", *select, "-d", "3", "-m", "time/ms"],
                    ["tree", *select, "--since", half, "--diff", "--until", half]):
        print("$ protonctl " + " ".join(command), flush=True)
        shown = subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, *command],
                               capture_output=True, text=True)
        print(shown.stdout + shown.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default="bundle")
    parser.add_argument("seconds", nargs="?", type=float, default=240)
    parser.add_argument("--window", type=float, default=2)
    parser.add_argument("--period", type=float, default=60)
    parser.add_argument("--chunk", type=float, default=5)
    parser.add_argument("--workload", choices=["eager", "compile"], default="eager")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--views", action="store_true")
    parser.add_argument("--control", action="store_true")
    args = parser.parse_args()
    bundle = os.path.abspath(args.bundle)
    work = tempfile.mkdtemp()
    program = write_program(work, PROGRAM)
    options = ["--always-on", "--always-on-window", f"{int(args.window * 1000)}ms",
               "--always-on-period", f"{int(args.period * 1000)}ms"]
    with protond(bundle, work, options) as socket:
        python_path = dict(PYTHONPATH=f"{bundle}/python")
        envs = {"profiled": dict(shim_env(bundle, socket), **python_path),
                "unprofiled": dict(os.environ, **python_path)}
        if args.control:
            envs["profiled"] = envs["unprofiled"]
        # Interleaved, each kind first in every other pair (in starting and in turns): profiled 1,
        # unprofiled 1, unprofiled 2, profiled 2, profiled 3, ... so that neither kind is always
        # the one that started first or trains right after the other.
        trainers = {}
        for i in range(1, args.pairs + 1):
            for kind in (list(envs) if i % 2 else list(reversed(envs))):
                trainers[f"{kind} {i}"] = start_trainer(program, work, f"{kind}-{i}",
                                                        args.workload, envs[kind])
        turns = take_turns(trainers, args.seconds, args.chunk)
        for trainer in trainers.values():
            trainer.stdin.write("quit\n")
            trainer.stdin.close()
            trainer.wait()
        sessions = subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "sessions"],
                                  capture_output=True, text=True).stdout
        if args.views:
            show_views(bundle, socket, args.seconds)
    windows_stored = sum(1 for line in sessions.splitlines() if "window pid" in line)
    turn_steps = {}  # name -> the steps of each of its turns
    for name in trainers:
        with open(f"{work}/{name.replace(' ', '-')}.json") as f:
            turn_steps[name] = split_turns(json.load(f), turns[name])
        if turn_steps[name] is None:
            sys.exit(f"{name}: its steps could not be split into turns (a step over 0.5 s?)")

    # Per round of turns: the profiled processes' idle steps against the unprofiled ones', each
    # side the median over its processes of their medians, so that no one process's own speed
    # decides; and per window, the steps in it against the same turn's idle steps.
    idle_ratios, window_ratios = [], []
    # Every registered process gets every window, in its turn or not: a process's CUPTI is first
    # enabled at the first window of the run. Rounds that ended before it tell whether an idle
    # cost is there from the start or only once CUPTI has been on.
    first_step = min(steps[0][0][0] for steps in turn_steps.values())
    first_window = (first_step // args.period + 1) * args.period
    before_first_window = []  # per round: True when all its steps ended before the first window
    for round_index in range(min(turns.values())):
        idle_medians, unprofiled_medians = [], []
        round_end = max(steps[round_index][-1][0] + steps[round_index][-1][1]
                        for steps in turn_steps.values())
        for name, steps in turn_steps.items():
            turn = steps[round_index]
            if name.startswith("unprofiled"):
                unprofiled_medians.append(statistics.median(s for _, s in turn))
                continue
            idle = [s for w, s in turn if not in_window(w, s, args.window, args.period)]
            busy = [s for w, s in turn if in_window(w, s, args.window, args.period)]
            if idle:
                idle_medians.append(statistics.median(idle))
            if busy and idle:
                window_ratios.append(statistics.median(busy) / statistics.median(idle))
        if idle_medians:
            idle_ratios.append(statistics.median(idle_medians) /
                               statistics.median(unprofiled_medians))
            before_first_window.append(round_end < first_window)
    unprofiled_steps = [s for name, steps in turn_steps.items() if name.startswith("unprofiled")
                        for turn in steps for _, s in turn]
    print(f"{'A/A control (no process has the shim): ' if args.control else ''}"
          f"{args.workload}, {args.seconds:.0f} s in turns of {args.chunk:g} s, windows of "
          f"{args.window:g} s every {args.period:g} s; {windows_stored} window sessions stored, "
          f"{len(window_ratios)} in the profiled processes' turns")
    print(f"step: {1000 * statistics.median(unprofiled_steps):.1f} ms unprofiled (median)")
    print(f"idle cost (profiled idle / unprofiled, per round of turns, {args.pairs} process "
          f"pairs): {spread(idle_ratios)}")
    for label, before in (("before the run's first window", True), ("after it", False)):
        ratios = [r for r, b in zip(idle_ratios, before_first_window) if b == before]
        print(f"  {label}: {spread(ratios) if ratios else '-'} ({len(ratios)} rounds)")
    if args.control:
        return
    if not window_ratios:
        sys.exit("no window fell in the profiled process's turns: run longer")
    print(f"window cost (in a window / idle, per window): {spread(window_ratios)}")
    idle, window = statistics.median(idle_ratios), statistics.median(window_ratios)
    for label, window_s, period_s in (("this run's policy", args.window, args.period),
                                      ("the default policy (2 s every 60 s)", 2, 60)):
        print(f"at {label}: {idle * (1 + window_s / period_s * (window - 1)):.4f} of the "
              f"unprofiled step time")


if __name__ == "__main__":
    main()
