#!/usr/bin/env python3
"""What protond.profiler's finalize() costs on the CPU, and where the time goes (issue 26).

A private protond is started; one Python program with the shim (PROTOND_SHIM, as the tests run
it) does ROUNDS rounds, each: start a session, record a tree shaped like a training loop's
(STEPS steps of forward and backward through 12 layers of 4 parts, and an optimizer over 30
parameter groups: about 150 nodes, 50 distinct names, 400 scopes a step, each layer part with
metrics), then finalize() it, which writes a complete <name>.hatchet. finalize() is timed, and
the same round is repeated once more with its two C ABI calls timed apart: the stop (the program
only queues it) and the export (which waits for the stop to reach the daemon, then asks the
daemon for the tree, renders it and writes the file). PROTOND_CONTROL_TIMING=1 makes the control
library report the time of each of its calls' parts: making the client, the RPC, rendering,
writing. The stop's RPC runs on the shim's stop thread; "wait for stop" is the export's time
less its own parts. No GPU is used: this is protond's own share of finalize(), without CUPTI's
flush.

Usage: bench/finalize_cost.py BIN_DIR [--rounds 30] [--steps 20]
Prints median [min-max] in ms of each part.
"""
import argparse
import os
import re
import socket as sockets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from load import start_daemon

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

PROGRAM = r'''
import os, sys, time
import protond.profiler as proton
from protond import _shim
_profile = sys.modules["protond.profiler.profile"]  # the module: its open sessions

ROUNDS, STEPS = int(sys.argv[1]), int(sys.argv[2])
LAYERS = [f"layer{i}" for i in range(12)]
PARTS = ["ln_1", "attn", "ln_2", "mlp"]
GROUPS = [f"adamw/p{i}" for i in range(30)]


def record():
    for step in range(STEPS):
        with proton.scope("step"):
            for phase in ("forward", "backward"):
                with proton.scope(phase):
                    for layer in LAYERS:
                        with proton.scope(layer):
                            for part in PARTS:
                                with proton.scope(part, {"flops": 1000 * step + 1,
                                                         "bytes": 4.5}):
                                    pass
            with proton.scope("optimizer"):
                for group in GROUPS:
                    with proton.scope(group, {"params": 768}):
                        pass


def ms(begin):
    return (time.perf_counter() - begin) * 1e3


lib = _shim.library()
for r in range(ROUNDS + 1):  # the first round is a warm-up
    proton.start("bench")
    record()
    begin = time.perf_counter()
    proton.finalize()
    print(f"finalize {ms(begin)}", flush=True)
    # The same round, its two C ABI calls timed apart.
    session = proton.start("bench")
    record()
    daemon_id = _profile._sessions[session].daemon_id
    del _profile._sessions[session]
    begin = time.perf_counter()
    assert lib.protond_session_stop(daemon_id) == _shim.OK, _shim.last_error()
    print(f"stop_call {ms(begin)}", flush=True)
    begin = time.perf_counter()
    path = os.path.abspath("bench.hatchet").encode()
    assert lib.protond_session_export(daemon_id, b"hatchet", path) == _shim.OK, _shim.last_error()
    print(f"export_call {ms(begin)}", flush=True)
'''

# "protond: timing export_session: client 0.1 ms rpc 0.9 ms render 0.2 ms write 0.1 ms"
TIMING = re.compile(r"protond: timing (\w+):(.*)")
PART = re.compile(r"(\w+) ([0-9.e+-]+) ms")


def free_port():
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def commits(metrics_address):
    """(count, seconds) of the daemon's commits so far, from its Prometheus metrics."""
    with urllib.request.urlopen(f"http://{metrics_address}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    values = dict(line.split()[:2] for line in text.splitlines()
                  if line.startswith("protond_commit_duration_seconds_"))
    return (int(float(values["protond_commit_duration_seconds_count"])),
            float(values["protond_commit_duration_seconds_sum"]))


def spread(values):
    return f"{statistics.median(values):6.2f} [{min(values):.2f}-{max(values):.2f}]"


def collect(stdout, stderr):
    """{part: [ms, ...]} from the program's lines and the control library's timing lines."""
    samples = {}
    for line in stdout.splitlines():
        name, value = line.split()
        samples.setdefault(name, []).append(float(value))
    for line in stderr.splitlines():
        match = TIMING.match(line)
        if match is None:
            continue
        for part, value in PART.findall(match.group(2)):
            samples.setdefault(f"{match.group(1)}.{part}", []).append(float(value))
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dir")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    bin_dir = os.path.abspath(args.bin_dir)
    metrics_address = f"127.0.0.1:{free_port()}"
    with tempfile.TemporaryDirectory() as work:
        daemon, socket = start_daemon(bin_dir, work, ["--metrics-listen", metrics_address])
        env = dict(os.environ, PROTOND_SHIM=os.path.join(bin_dir, "libprotond_shim.so"),
                   PYTHONPATH=os.path.join(REPO, "client-lib", "python"), PROTOND_SOCKET=socket,
                   PROTOND_AUTOSTART="0", PROTOND_CONTROL_TIMING="1")
        try:
            done = subprocess.run([sys.executable, "-c", PROGRAM, str(args.rounds),
                                   str(args.steps)], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=600)
            commit_count, commit_s = commits(metrics_address)
        finally:
            daemon.terminate()
            daemon.wait()
        if done.returncode != 0:
            sys.exit(f"the program failed ({done.returncode}):\n{done.stderr}")
    samples = collect(done.stdout, done.stderr)
    for name in list(samples):
        if name.startswith(("stop_session.", "export_session.")):
            # Each round runs finalize() then stop and export apart: keep the latter's lines.
            samples[name] = samples[name][1::2]
        samples[name] = samples[name][1:]  # the warm-up round
    export_parts = [samples[f"export_session.{part}"] for part in
                    ("client", "rpc", "render", "write")]
    samples["wait_for_stop"] = [total - sum(parts) for total, *parts in
                                zip(samples["export_call"], *export_parts)]
    print(f"{args.rounds} rounds, {args.steps} steps a round; ms, median [min-max]")
    for name in ["finalize", "stop_call", "export_call", "wait_for_stop"] + sorted(
            name for name in samples if "." in name):
        print(f"  {name:24} {spread(samples[name])}")
    rounds = 2 * (args.rounds + 1)
    print(f"the daemon's commits: {commit_count / rounds:.1f} a round (a session, start to "
          f"export), {commit_s * 1e3 / max(commit_count, 1):.2f} ms each on average")


if __name__ == "__main__":
    main()
