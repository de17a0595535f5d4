#!/usr/bin/env python3
"""DDP over two GPUs with torchrun, profiled as Proton's users do it: each rank trains a small
GPT-2 (transformers' config, random init) with AdamW under DistributedDataParallel, 10 steps in
scopes, with `import protond.profiler as proton`, start() ... finalize() per rank, the whole job
under `protonctl run` (one session for the job, one per rank from start()).

Checks: both ranks' .hatchet files hold the same number of kernel launches under train/step, more
than zero, NCCL's all-reduces and cuBLAS's matrix multiplications among them in every step;
every session is stopped with 0 records dropped; `protonctl devices` shows each rank running work
on one GPU of its own and seeing the other. Prints what
finalize() cost each rank, and `protonctl tree` of the job's session. Exit code 0 when every check
passes.

Usage (on a GPU machine with two GPUs, from a bundle made by scripts/bundle.sh):
    tests/gpu/ddp_check.py BUNDLE_DIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from gpu_common import protond  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hatchet_check  # noqa: E402
from training_check import launches_under, session_failures, verdict  # noqa: E402

# Each of the 10 steps all-reduces the gradients (NCCL's kernels) and multiplies matrices
# (cuBLAS's): tests/gpu/hatchet_check.py's rules.
EXPECTED = ["train/step/**/~nccl>=10", "train/step/**/~gemm|nvjet|xmma|cutlass>=10"]

# One rank's training, shared with tests/device/job_verdict_check.sh.
PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddp_train.py")


def device_failures(ctl):
    """Each rank sees both GPUs and runs work on one, its own (issue 26: both showed as its)."""
    devices = subprocess.run(ctl + ["devices", "1"], capture_output=True, text=True)
    print(devices.stdout or devices.stderr)
    used = {}  # pid: the devices it ran work on
    for line in devices.stdout.splitlines()[1:]:
        fields = line.split()
        if line.endswith("ran work"):
            used.setdefault(fields[0], []).append(fields[1])
    if (len(used) != 2 or any(len(ids) != 1 for ids in used.values()) or
            len({ids[0] for ids in used.values()}) != 2):
        return [f"protonctl devices: each rank should run work on one GPU of its own: {used}"]
    if "visible only" not in devices.stdout:
        return ["protonctl devices: no rank shows the GPU it only saw"]
    return []


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = PROGRAM
    failures = []
    with protond(bundle, work) as socket:
        ctl = [f"{bundle}/bin/protonctl", "--socket", socket]
        env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
        torchrun = shutil.which("torchrun") or "torchrun"
        job = subprocess.run(ctl + ["run", "--name", "ddp", "--", torchrun, "--nproc_per_node",
                                    "2", program, work],
                             env=env, capture_output=True, text=True, cwd=work)
        print(job.stdout[-3000:])
        if job.returncode != 0:
            print(job.stderr[-4000:])
            failures.append(f"the job exited with {job.returncode}")
        for line in job.stdout.splitlines():
            if line.startswith("RESULT "):
                rank, result = line[7:].split(" ", 1)
                print(f"rank {rank}: finalize {json.loads(result)['finalize_ms']:.1f} ms")
        launches = []
        for path in sorted(glob.glob(os.path.join(work, "rank*.hatchet"))):
            tree = hatchet_check.load(path)
            launches.append(launches_under(tree, [], ["ROOT", "train", "step"]))
            failures += hatchet_check.failures(hatchet_check.launches(tree), EXPECTED,
                                               os.path.basename(path))
        print(f"kernel launches under train/step per rank: {launches}")
        if len(launches) != 2 or launches[0] != launches[1] or launches[0] == 0:
            failures.append(f"the ranks' files disagree or are missing: {launches}")
        failures += session_failures(bundle, socket)
        failures += device_failures(ctl)
        tree = subprocess.run(ctl + ["tree", "1", "-m", "count", "-d", "2"], capture_output=True,
                              text=True)
        print(tree.stdout[-2000:] or tree.stderr)
    return verdict("ddp check", failures)


if __name__ == "__main__":
    sys.exit(main())
