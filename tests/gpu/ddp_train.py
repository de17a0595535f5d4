"""One rank of a DDP training job, for torchrun: a small GPT-2 (transformers' config, random init)
trained with AdamW under DistributedDataParallel. Used by tests/gpu/ddp_check.py (profiled
in-process, as Proton's users do) and tests/device/job_verdict_check.sh (a late rank on purpose,
under `protonctl run --data trace`).

Usage: torchrun --nproc_per_node 2 tests/gpu/ddp_train.py [PROTON_DIR]

Each rank prints "RATE R STEPS_PER_S" for its timed steps (bench/nccl_plugin_cost.py reads rank
0's) and "LOSS R VALUE", the loss of its last step (a profiled job must print the same as an
unprofiled one). With PROTON_DIR, each rank records its steps with `import protond.profiler as proton`: start()
into PROTON_DIR/rankR after 3 warm-up steps, the steps in scopes train/step, then finalize(), and
prints "RESULT R {"finalize_ms": ...}". Without it, nothing is imported from protond: the steps
run plainly (warm-up included).

Environment (all optional):
  PROTOND_TEST_STEPS        steps after the warm-up (default 10)
  PROTOND_TEST_MODEL        "small" (default: 4 layers, 512 wide, 8192 tokens) or "tiny" (2 layers,
                            64 wide, 512 tokens: its gradients fit in DDP's first bucket of 1 MiB,
                            so each step all-reduces once)
  PROTOND_TEST_DELAY_RANK   the rank that sleeps PROTOND_TEST_DELAY_MS before each step
  PROTOND_TEST_DELAY_MS     (default 0: no rank sleeps)
  PROTOND_TEST_DELAY_KIND   "sleep" (default) or "spin": the delayed rank busy-waits instead, as a
                            rank doing CPU work would; a rank woken from a sleep launches its
                            next kernels more slowly, so a sleep costs the job more than its length
  PROTOND_TEST_ARRIVALS_DIR each rank writes DIR/rankR.txt: the CLOCK_MONOTONIC time (ns) at which
                            DDP handed each gradient bucket to its all-reduce (a comm hook), one a
                            line, warm-up included: the job's own clock of when each rank reached
                            each call (tests/device/job_arrivals.py compares the ranks), and
                            DIR/rankR.steps: when each step began, before any delay
  PROTOND_TEST_FUSED_ADAMW=1  AdamW's fused kernels: its step is a few launches rather than a few
                            per parameter tensor, so a rank whose all-reduce ends late does not
                            then spend milliseconds launching its optimizer while the others'
                            optimizer kernels, queued long before, are already done
  PROTOND_TEST_SYNC_EACH_STEP=1   each rank waits for its GPU at the end of each step, as a loop
                            that logs each step's loss does: a rank that sleeps then starts its
                            next all-reduce that much later, rather than its GPU catching up on
                            work queued ahead
"""
import contextlib
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from transformers import GPT2Config, GPT2LMHeadModel

MODELS = {
    "small": dict(n_layer=4, n_head=8, n_embd=512, n_positions=256, vocab_size=8192),
    "tiny": dict(n_layer=2, n_head=2, n_embd=64, n_positions=256, vocab_size=512),
}


def main():
    proton_dir = sys.argv[1] if len(sys.argv) > 1 else ""
    steps = int(os.environ.get("PROTOND_TEST_STEPS", "10"))
    delay_rank = int(os.environ.get("PROTOND_TEST_DELAY_RANK", "-1"))
    delay_s = float(os.environ.get("PROTOND_TEST_DELAY_MS", "0")) / 1e3
    sync_each_step = os.environ.get("PROTOND_TEST_SYNC_EACH_STEP") == "1"
    spin = os.environ.get("PROTOND_TEST_DELAY_KIND", "sleep") == "spin"
    arrivals_dir = os.environ.get("PROTOND_TEST_ARRIVALS_DIR", "")

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    torch.manual_seed(0)
    config = GPT2Config(**MODELS[os.environ.get("PROTOND_TEST_MODEL", "small")])
    model = torch.nn.parallel.DistributedDataParallel(GPT2LMHeadModel(config).cuda())
    fused = os.environ.get("PROTOND_TEST_FUSED_ADAMW") == "1"
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=fused or None)
    tokens = torch.randint(0, config.vocab_size, (8, 256), device="cuda")
    arrivals = []
    step_starts = []
    if arrivals_dir:
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

        def timed_all_reduce(state, bucket):
            arrivals.append(time.monotonic_ns())
            return default_hooks.allreduce_hook(state, bucket)

        model.register_comm_hook(None, timed_all_reduce)

    def delay():
        if spin:
            end = time.perf_counter() + delay_s
            while time.perf_counter() < end:
                pass
        else:
            time.sleep(delay_s)

    def train_step():
        if arrivals_dir:
            step_starts.append(time.monotonic_ns())
        if rank == delay_rank and delay_s > 0:
            delay()
        loss = model(tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if sync_each_step:
            torch.cuda.synchronize()
        return loss

    for _ in range(3):
        train_step()
    torch.cuda.synchronize()
    proton = None
    if proton_dir:
        import protond.profiler as proton
        proton.start(os.path.join(proton_dir, f"rank{rank}"))
    scope = proton.scope if proton else (lambda name: contextlib.nullcontext())
    begin = time.perf_counter()
    loss = None
    with scope("train"):
        for _ in range(steps):
            with scope("step"):
                loss = train_step()
    torch.cuda.synchronize()
    print(f"RATE {rank} {steps / (time.perf_counter() - begin):.3f}", flush=True)
    if loss is not None:
        print(f"LOSS {rank} {loss.item():.9g}", flush=True)
    if arrivals_dir:
        with open(os.path.join(arrivals_dir, f"rank{rank}.txt"), "w") as out:
            out.writelines(f"{ns}\n" for ns in arrivals)
        with open(os.path.join(arrivals_dir, f"rank{rank}.steps"), "w") as out:
            out.writelines(f"{ns}\n" for ns in step_starts)
    if proton:
        begin = time.perf_counter()
        proton.finalize()
        print(f"RESULT {rank} " + json.dumps({"finalize_ms": (time.perf_counter() - begin) * 1e3}))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
