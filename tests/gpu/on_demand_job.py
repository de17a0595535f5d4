#!/usr/bin/env python3
"""`protonctl start --job` on a 2-rank torch.distributed job (NCCL, one process per GPU; both on
GPU 0 when the machine has one), started with the shim loaded and no session: one session over
both ranks, each rank's part with its own kernels (NCCL's included) and device, and the job's
results unchanged.

Usage (on a GPU machine, from a bundle made by scripts/bundle.sh):
    tests/gpu/on_demand_job.py BUNDLE_DIR
Exit code 0 when every check holds.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from gpu_common import protond  # noqa: E402

JOB = "4711"

RANK_PROGRAM = r'''
import os, sys, time, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
gpus = torch.cuda.device_count()
torch.cuda.set_device(rank % gpus)
dist.init_process_group("nccl" if gpus > 1 else "gloo")
x = torch.ones(1 << 20, device="cuda") * (rank + 1)
a = torch.randn(1024, 1024, device="cuda")
steps = 0
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    a @ a
    y = x.clone()
    if gpus > 1:
        dist.all_reduce(y)
    else:
        cpu = y.cpu()
        dist.all_reduce(cpu)
        y = cpu.cuda()
    steps += 1
    time.sleep(0.005)
torch.cuda.synchronize()
print(f"rank {rank}: {steps} steps, all_reduce {float(y[0])} (expected 3.0), device {rank % gpus}")
dist.destroy_process_group()
'''


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    program = os.path.join(work, "rank.py")
    with open(program, "w") as f:
        f.write(RANK_PROGRAM)
    problems = []
    ctl = [f"{bundle}/bin/protonctl"]
    with protond(bundle, work) as socket:
        ctl += ["--socket", socket]
        ranks = []
        for rank in range(2):
            env = dict(os.environ, LD_PRELOAD=f"{bundle}/bin/libprotond_shim.so",
                       PROTOND_SOCKET=socket, SLURM_JOB_ID=JOB, SLURM_STEP_ID="0",
                       RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2",
                       MASTER_ADDR="127.0.0.1", MASTER_PORT="29533", NCCL_NVLS_ENABLE="0",
                       TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
            ranks.append(subprocess.Popen([sys.executable, program, "14"], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
        time.sleep(6)  # NCCL set-up and the shims' registration
        listed = subprocess.run(ctl + ["processes"], capture_output=True, text=True).stdout
        print(listed)
        start = subprocess.run(ctl + ["start", "--job", JOB, "--duration", "3s", "--wait",
                                      "--name", "job"], capture_output=True, text=True)
        print(start.stdout[:6000], start.stderr)
        if "recording 2 of 2 processes" not in start.stdout:
            problems.append("the job's session does not record both ranks")
        for rank in ("0", "1"):
            tree = subprocess.run(ctl + ["tree", "1", "--rank", rank, "-m", "count,time/ms"],
                                  capture_output=True, text=True)
            print(f"== rank {rank}\n{tree.stdout[:3000]}{tree.stderr}")
            if tree.returncode != 0 or not re.search(r"nccl|gemm|nvjet|sgemm", tree.stdout,
                                                     re.IGNORECASE):
                problems.append(f"rank {rank}'s tree has no NCCL or GEMM kernel")
        devices = subprocess.run(ctl + ["devices", "1"], capture_output=True, text=True)
        print(devices.stdout, devices.stderr)
        for process in ranks:
            out, err = process.communicate()
            print(out.strip(), err.strip()[-2000:])
            if process.returncode != 0 or "all_reduce 3.0" not in out:
                problems.append(f"a rank failed or computed a wrong all_reduce: {out.strip()}")
    for problem in problems:
        print("PROBLEM:", problem)
    print("job checks hold" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
