#!/usr/bin/env python3
"""Attach on the GPU (issue 34, docs/attach.md): a PyTorch training loop started with nothing of
protond's loaded (the tiny GPT-2 from `transformers`' config, random init, AdamW, deterministic)
is profiled three times by `protonctl start --pid`. The first start loads the shim; the next two
find it registered. Checks, for each mode (eager, compile):
  - each window's session has the training loop's kernels;
  - only the first start says it loaded the shim;
  - the loss of every step equals that of the same run never attached (bit for bit: the loop
    runs with deterministic algorithms).
It prints the time `protonctl start` took for each window, and the load time the daemon reports.

Usage (on a GPU machine, from a bundle made by scripts/bundle.sh):
    tests/gpu/attach_check.py BUNDLE_DIR [eager,compile]
Exit code 0 when every check holds.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from gpu_common import protond, write_program  # noqa: E402

STEPS = 400
WINDOW_S = 1.0

TRAINING = r'''
import os, sys, time, torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
mode, steps = sys.argv[1], int(sys.argv[2])
config = GPT2Config(n_layer=2, n_head=4, n_embd=256, n_positions=128, vocab_size=4096)
model = GPT2LMHeadModel(config).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
forward = model if mode == "eager" else torch.compile(model)
data = torch.randint(0, config.vocab_size, (steps, 8, 128), device="cuda")
for step in range(steps):
    loss = forward(data[step], labels=data[step]).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item()!r}", flush=True)
    time.sleep(0.02)
'''


def losses(text):
    return re.findall(r"^step \d+ loss (\S+)$", text, re.M)


def kernel_count(ctl, session, work):
    """Kernel launches in the session's tree (the counts of its leaves), from its Hatchet export."""
    out = os.path.join(work, f"session_{session}.hatchet")
    subprocess.run(ctl + ["export", str(session), "--format", "hatchet", "-o", out, "--force"],
                   check=True, capture_output=True)
    with open(out) as f:
        roots = json.load(f)
    total = 0
    stack = list(roots)
    while stack:
        node = stack.pop()
        if not node.get("children"):
            total += int(node.get("metrics", {}).get("count", 0))
        stack.extend(node.get("children", []))
    return total


def check_mode(bundle, socket, work, program, mode, problems):
    ctl = [f"{bundle}/bin/protonctl", "--socket", socket]
    env = dict(os.environ, CUBLAS_WORKSPACE_CONFIG=":4096:8")
    reference = subprocess.run([sys.executable, program, mode, str(STEPS)], env=env,
                               capture_output=True, text=True, timeout=600)
    if reference.returncode != 0:
        problems.append(f"{mode}: the unattached run failed: {reference.stderr[-2000:]}")
        return
    trainer = subprocess.Popen([sys.executable, program, mode, str(STEPS)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    while len(seen) < 30:  # compiled and warm
        line = trainer.stdout.readline()
        if not line:
            break
        seen.append(line)
    sessions = []
    for window in range(1, 4):
        began = time.monotonic()
        start = subprocess.run(ctl + ["start", "--pid", str(trainer.pid), "--name",
                                      f"{mode}_{window}"], capture_output=True, text=True)
        took_ms = (time.monotonic() - began) * 1000
        print(f"{mode} window {window}: protonctl start took {took_ms:.0f} ms")
        print("  " + start.stdout.strip().replace("\n", "\n  "))
        if start.returncode != 0:
            problems.append(f"{mode} window {window}: start failed: {start.stdout} {start.stderr}")
            continue
        loaded = "loaded its shim" in start.stdout
        if loaded != (window == 1):
            problems.append(f"{mode} window {window}: 'loaded its shim' is {loaded}")
        sessions.append(int(re.search(r"^session (\d+)", start.stdout, re.M).group(1)))
        time.sleep(WINDOW_S)
        stop = subprocess.run(ctl + ["stop", "--pid", str(trainer.pid)], capture_output=True,
                              text=True)
        if stop.returncode != 0:
            problems.append(f"{mode} window {window}: stop failed: {stop.stderr}")
        time.sleep(0.3)
    out, err = trainer.communicate(timeout=600)
    if trainer.returncode != 0:
        problems.append(f"{mode}: the attached run failed ({trainer.returncode}): {err[-2000:]}")
    ours, theirs = losses("".join(seen) + out), losses(reference.stdout)
    if len(theirs) != STEPS or ours != theirs:
        differing = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
        problems.append(f"{mode}: losses differ from the unattached run ({len(ours)} vs "
                        f"{len(theirs)} steps; first differing steps {differing[:5]})")
    else:
        print(f"{mode}: all {STEPS} losses equal the unattached run's")
    for session in sessions:
        kernels = kernel_count(ctl, session, work)
        print(f"{mode}: session {session} has {kernels} kernel launches")
        if kernels < 100:
            problems.append(f"{mode}: session {session} has {kernels} kernel launches (< 100)")


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    modes = (sys.argv[2] if len(sys.argv) > 2 else "eager,compile").split(",")
    work = tempfile.mkdtemp()
    program = write_program(work, TRAINING)
    problems = []
    with protond(bundle, work) as socket:
        for mode in modes:
            check_mode(bundle, socket, work, program, mode, problems)
    for problem in problems:
        print("FAIL:", problem)
    print("attach_check:", "PASS" if not problems else f"{len(problems)} failed checks")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
