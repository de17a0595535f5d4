#!/usr/bin/env python3
"""A training job as users run it, under Triton's Proton and under protond.profiler (only the
import differs): a small GPT-2 built from transformers' config (random init, nothing downloaded)
trained with AdamW, eagerly and under torch.compile, 20 steps in scopes, with deactivate() and
activate() around an evaluation every 5 steps, then finalize().

Checks, for each mode: protond's .hatchet file holds as many kernel launches under train/step as
Proton's (the last ones, delivered after the stop, included), and none of the evaluation's; both
files hold the matrix multiplications of the 20 steps (cuBLAS's kernels: gemm, nvjet, xmma or
cutlass in their names); the daemon's session is stopped with 0 records dropped. Prints what
deactivate() and finalize() cost the program with each profiler, median [min-max]. Exit code 0
when every check passes.

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    tests/gpu/training_check.py BUNDLE_DIR [eager,compile]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hatchet_check  # noqa: E402
from gpu_common import protond  # noqa: E402

# In each of the 20 steps, forward and backward multiply matrices (tests/gpu/hatchet_check.py's
# rule); torch.compile leaves them to cuBLAS too.
EXPECTED = ["train/step/**/~gemm|nvjet|xmma|cutlass>=20"]

PROGRAM = r'''
import json, sys, time, torch
from transformers import GPT2Config, GPT2LMHeadModel
api, mode, name = sys.argv[1:4]
if api == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton

torch.manual_seed(0)
config = GPT2Config(n_layer=4, n_head=8, n_embd=512, n_positions=256, vocab_size=8192)
model = GPT2LMHeadModel(config).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
forward = model if mode == "eager" else torch.compile(model)
tokens = torch.randint(0, config.vocab_size, (8, 256), device="cuda")

def train_step():
    loss = forward(tokens, labels=tokens).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

def evaluate():
    with torch.no_grad():
        model(tokens)

for _ in range(3):  # compile and warm up outside the profile
    train_step()
    evaluate()
torch.cuda.synchronize()

deactivate_ms = []
proton.start(name)
with proton.scope("train"):
    for i in range(20):
        with proton.scope("step"):
            train_step()
        if i % 5 == 4:
            torch.cuda.synchronize()
            begin = time.perf_counter()
            proton.deactivate()
            deactivate_ms.append((time.perf_counter() - begin) * 1e3)
            evaluate()
            torch.cuda.synchronize()
            proton.activate()
begin = time.perf_counter()
proton.finalize()
finalize_ms = (time.perf_counter() - begin) * 1e3
print("RESULT " + json.dumps({"deactivate_ms": deactivate_ms, "finalize_ms": finalize_ms}))
'''


def kernel_counts(node, path, want, counts):
    """Adds up, by kernel name, the launches (count) in the subtree at `want` (a list of frame
    names) of a Hatchet node. Copies and sets ("[CUDA memcpy ...]", "[CUDA memset]") are left
    out: protond records them, Triton 3.6's Proton does not."""
    here = path + [node["frame"]["name"]]
    name = here[-1]
    if here[:len(want)] == want and len(here) > len(want) and not node["children"]:
        if not name.startswith("[CUDA mem"):
            counts[name] = counts.get(name, 0) + node["metrics"].get("count", 0)
    for child in node["children"]:
        kernel_counts(child, here, want, counts)
    return counts


def launches_under(node, path, want):
    """Kernel launches in the subtree at `want` of a Hatchet node (kernel_counts, added up)."""
    return sum(kernel_counts(node, path, want, {}).values())


def count_differences(theirs, ours, shown=8):
    """The kernels whose launch counts differ, the largest differences first."""
    names = set(theirs) | set(ours)
    differing = sorted((abs(ours.get(n, 0) - theirs.get(n, 0)), n) for n in names
                       if ours.get(n, 0) != theirs.get(n, 0))
    return [f"  {theirs.get(n, 0):6} Proton {ours.get(n, 0):6} protond  {n[:120]}"
            for _, n in reversed(differing[-shown:])]


def run(bundle, socket, work, api, mode):
    name = os.path.join(work, f"{api}-{mode}")
    env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
    done = subprocess.run([sys.executable, os.path.join(work, "program.py"), api, mode, name],
                          env=env, capture_output=True, text=True, cwd=work)
    lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{api} {mode} failed:\n{done.stderr[-3000:]}")
    result = json.loads(lines[0][7:])
    tree = hatchet_check.load(name + ".hatchet")
    result["profile"] = hatchet_check.launches(tree)
    result["by_name"] = kernel_counts(tree, [], ["ROOT", "train", "step"], {})
    result["launches"] = sum(result["by_name"].values())
    result["anywhere"] = launches_under(tree, [], ["ROOT"])
    return result


def session_failures(bundle, socket):
    """Every session stopped, none with records dropped (protonctl sessions' table)."""
    table = subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, "sessions"],
                           capture_output=True, text=True, check=True).stdout
    print(table)
    lines = table.splitlines()
    # ID NAME STATE ... (START and END hold a space) ... DROPPED [MODE]
    dropped = -1 if lines[0].split()[-1] == "DROPPED" else -2
    failures = []
    for line in lines[1:]:
        row = line.split()
        if row[2] != "stopped" or row[dropped] != "0":
            failures.append(f"session {row[0]}: {row[2]}, {row[dropped]} dropped")
    return failures if lines[1:] else ["no session in protond"]


def verdict(check, failures):
    """Prints each failure and the check's verdict; the exit code."""
    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"{check}: " + ("FAILED" if failures else "PASS"))
    return 1 if failures else 0


def spread(values):
    return f"{statistics.median(values):.1f} [{min(values):.1f}-{max(values):.1f}]"


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    modes = (sys.argv[2] if len(sys.argv) > 2 else "eager,compile").split(",")
    work = tempfile.mkdtemp()
    with open(os.path.join(work, "program.py"), "w") as f:
        f.write(PROGRAM)
    failures = []
    with protond(bundle, work) as socket:
        for mode in modes:
            theirs = run(bundle, socket, work, "proton", mode)
            ours = run(bundle, socket, work, "protond", mode)
            print(f"{mode}: kernel launches under train/step: Proton {theirs['launches']}, "
                  f"protond {ours['launches']} (in the whole tree: {theirs['anywhere']}, "
                  f"{ours['anywhere']})")
            print(f"{mode}: deactivate (ms): Proton {spread(theirs['deactivate_ms'])}, "
                  f"protond {spread(ours['deactivate_ms'])}")
            print(f"{mode}: finalize (ms): Proton {theirs['finalize_ms']:.1f}, "
                  f"protond {ours['finalize_ms']:.1f}")
            if ours["launches"] == 0 or ours["launches"] != theirs["launches"]:
                failures.append(f"{mode}: protond has {ours['launches']} launches under "
                                f"train/step, Proton {theirs['launches']}")
                print("\n".join(count_differences(theirs["by_name"], ours["by_name"])))
            for side, result in (("Proton", theirs), ("protond", ours)):
                failures += hatchet_check.failures(result["profile"], EXPECTED,
                                                   f"{mode}: {side}'s file")
            if ours["anywhere"] != ours["launches"]:
                failures.append(f"{mode}: protond has {ours['anywhere'] - ours['launches']} "
                                "launches outside train/step (the evaluation's?)")
        failures += session_failures(bundle, socket)
    return verdict("training check", failures)


if __name__ == "__main__":
    sys.exit(main())
