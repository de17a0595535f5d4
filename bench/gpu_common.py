"""What the GPU scripts share (bench/gpu_overhead.py, bench/python_api_overhead.py,
bench/training_overhead.py, bench/always_on_overhead.py, tests/gpu/compare_with_proton.py, tests/gpu/compare_python_api.py,
bench/research/callback_cost.py): a private protond from a bundle, the Triton kernel their
programs launch, and the paired off/on rounds the overhead benchmarks measure with."""
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time

# Source text for the profiled programs (they run in their own processes).
TRITON_ADD_ONE = r'''
import triton, triton.language as tl

@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)
'''


def write_program(work, text):
    """Writes a program (with add_one defined first) into `work` and returns its path."""
    path = os.path.join(work, "program.py")
    with open(path, "w") as f:
        f.write(TRITON_ADD_ONE + text)
    return path


@contextlib.contextmanager
def protond(bundle, work, options=()):
    """A protond serving work/protond.sock while the block runs, with `options` (for example
    ["--always-on"]); yields the socket path."""
    socket = os.path.join(work, "protond.sock")
    daemon = subprocess.Popen([f"{bundle}/bin/protond", "--socket", socket, "--state-dir",
                               f"{work}/state", *options], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(socket):
                break
            time.sleep(0.05)
        yield socket
    finally:
        daemon.terminate()
        daemon.wait()


# Source text: a small GPT-2 from transformers' config (random init, nothing downloaded) trained
# with AdamW, as tests/gpu/training_check.py trains it; training_step(forward) is one step, with
# forward the model or its torch.compile.
TRAINING_LOOP = r'''
import torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(n_layer=4, n_head=8, n_embd=512, n_positions=256, vocab_size=8192)
model = GPT2LMHeadModel(config).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
tokens = torch.randint(0, config.vocab_size, (8, 256), device="cuda")

def training_step(forward):
    forward(tokens, labels=tokens).loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
'''


def shim_env(bundle, socket):
    """Environment for a program that records into `socket` with the shim preloaded."""
    shim = f"{bundle}/bin/libprotond_shim.so"
    return dict(os.environ, LD_PRELOAD=shim, PROTOND_SHIM=shim, PROTOND_SOCKET=socket)


# Source text for an overhead benchmark's program, which defines WORKLOADS ({name: function}) and
# calls run_paired_rounds(start, stop, WORKLOADS, rounds). Process-to-process noise on a shared
# machine is larger than the effects measured, so every round times each workload once with the
# profiler off and once on (order alternating), and a sample is on / off within the round. One
# start/stop cycle first keeps one-time costs (CUPTI's first enable, compilation) out.
PAIRED_ROUNDS = r'''
import json as _json, time as _time, torch as _torch

def _timed(workload):
    _torch.cuda.synchronize()
    begin = _time.perf_counter()
    workload()
    _torch.cuda.synchronize()
    return _time.perf_counter() - begin

def run_paired_rounds(start, stop, workloads, rounds):
    for workload in workloads.values():
        workload()
    start()
    for workload in workloads.values():
        workload()
    stop()
    ratios = {name: [] for name in workloads}
    stops = []
    for r in range(rounds):
        seconds = {}
        for state in (("off", "on") if r % 2 == 0 else ("on", "off")):
            if state == "on":
                start()
            for name, workload in workloads.items():
                seconds[name, state] = _timed(workload)
            if state == "on":
                begin = _time.perf_counter()
                stop()
                stops.append(_time.perf_counter() - begin)
                # A profiler may finish its stop on a thread of its own (protond does): let it
                # end before the next timing, so that it is not counted there.
                _time.sleep(0.5)
        for name in workloads:
            ratios[name].append(seconds[name, "on"] / seconds[name, "off"])
    print("RESULT " + _json.dumps({"ratios": ratios, "stops": stops}))
'''


# Source text: torch.profiler's start and stop (CPU and CUDA activities, as a user profiles a
# step), for the programs of the overhead benchmarks that compare it.
TORCH_PROFILER = r'''
import torch
_torch_profile = {}

def torch_profiler_start():
    _torch_profile["profile"] = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA])
    _torch_profile["profile"].__enter__()

def torch_profiler_stop():
    _torch_profile.pop("profile").__exit__(None, None, None)
'''


def collect_paired(program, names, workloads, rounds, processes, env_for, cwd):
    """Runs `program NAME ROUNDS` `processes` times per name (order rotated) and pools what
    run_paired_rounds printed: ({name: {workload: [on/off]}}, {name: [stop seconds]})."""
    ratios = {name: {w: [] for w in workloads} for name in names}
    stops = {name: [] for name in names}
    for index in range(processes):
        for name in names[index % len(names):] + names[:index % len(names)]:
            run = subprocess.run([sys.executable, program, name, str(rounds)], env=env_for(name),
                                 cwd=cwd, capture_output=True, text=True)
            lines = [l for l in run.stdout.splitlines() if l.startswith("RESULT ")]
            if run.returncode != 0 or not lines:
                print(f"{name} failed:\n{run.stderr[-2000:]}")
                continue
            result = json.loads(lines[0][7:])
            for w in workloads:
                ratios[name][w] += result["ratios"][w]
            stops[name] += result["stops"]
    return ratios, stops


def spread(samples, scale=1.0, digits=3):
    """"median [min-max]" of `samples` times `scale`."""
    return (f"{statistics.median(samples) * scale:.{digits}f} "
            f"[{min(samples) * scale:.{digits}f}-{max(samples) * scale:.{digits}f}]")


def print_paired(names, workloads, ratios, stops, stop_label):
    width = max(9, max(len(name) for name in names) + 1)
    print(f"{'':{width}}" + "".join(f"{w:>30}" for w in workloads) +
          f"{stop_label + ' (ms)':>26}")
    for name in names:
        row = "".join(f"{spread(ratios[name][w]):>30}" if ratios[name][w] else f"{'-':>30}"
                      for w in workloads)
        row += f"{spread(stops[name], 1e3, 1):>26}" if stops[name] else f"{'-':>26}"
        print(f"{name:{width}}{row}")
