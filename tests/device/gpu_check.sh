#!/usr/bin/env bash
# GPU checks of a bundle (scripts/bundle.sh) on the GPU machine: the gpu-labelled tests, the CUDA
# sample's tree and devices, and an unmodified PyTorch program (with NVTX ranges) under
# protonctl run. Every step is checked; the exit code is 1 when any failed (tests/device/lib.sh).
# Kernel names differ across PyTorch versions: the checks match them by what they do (~add, ~mul:
# CUDAFunctor_add, MulFunctor), never by their whole name.
# Usage: tests/device/gpu_check.sh [BUNDLE_DIR]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
nvidia-smi -L 2>/dev/null || fail "nvidia-smi lists no GPU"

echo "== GPU tests"
check "protond_gpu_run_test" env PROTOND_BIN_DIR="$bundle/bin" "$bundle/bin/protond_gpu_run_test"

start_daemon

echo "== sample_gpu_workload under protonctl run"
check "sample_gpu_workload under protonctl run" \
  "${ctl[@]}" run --name sample-gpu -- "$bundle/bin/sample_gpu_workload"
find_session sample-gpu
check "tree of sample-gpu" "${ctl[@]}" tree "$session" -m time/us,count,bytes
# As sample/sample_gpu_workload.cu says (5 steps, 2 threads, 3 replays).
expect_tree "sample-gpu's kernels" "$session" "setup/[CUDA memcpy Host-to-Device]=2" \
  "setup/[CUDA memset]=1" "train/step/forward/~scale=10" "train/step/backward/~add=5" \
  "worker/~fill=8" "teardown/[CUDA memcpy Device-to-Host]=1" "*=0"
check_output "devices of sample-gpu" "$work/devices.txt" "${ctl[@]}" devices "$session"
expect_line "devices of sample-gpu" "$work/devices.txt" "sm_[0-9]+"

echo "== PyTorch, unmodified, under protonctl run"
check "PyTorch under protonctl run" "${ctl[@]}" run --name torch -- python3 - <<'PY'
import torch
x = torch.ones(1 << 20, device="cuda")
for _ in range(100):
    x.add_(1.0)
torch.cuda.nvtx.range_push("nvtx_outer")
for _ in range(7):
    torch.cuda.nvtx.range_push("nvtx_inner")
    x.mul_(1.0)
    torch.cuda.nvtx.range_pop()
torch.cuda.nvtx.range_pop()
y = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
for _ in range(10):
    y @ y
torch.cuda.synchronize()
print("torch result", float(x[0]))
assert float(x[0]) == 101.0, "x is not 1 + 100 adds"
PY
find_session torch
check "tree of torch" "${ctl[@]}" tree "$session" -m time/us,count
# The NVTX ranges are scopes with their 7 mul kernels under them; the 100 adds ran outside any.
expect_tree "torch's NVTX ranges" "$session" "nvtx_outer/nvtx_inner/~mul=7" \
  "nvtx_outer/nvtx_inner/*=7" "nvtx_outer/*=0" "~add=100" "*>=110"
check "devices of torch" "${ctl[@]}" devices "$session"

echo "== a session started while torch.profiler holds CUPTI: a problem names it, the work goes on"
check_output "a session beside torch.profiler" "$work/held.txt" \
  env LD_PRELOAD="$bundle/bin/libprotond_shim.so" PROTOND_SOCKET="$socket" \
  python3 - "$bundle/bin/libprotond_shim.so" <<'PY'
import ctypes, sys, torch
shim = ctypes.CDLL(sys.argv[1])
x = torch.ones(1024, device="cuda")
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
    session = ctypes.c_uint64(0)
    start = shim.protond_session_start(b"held", ctypes.byref(session))
    print("start rc", start, "session", session.value)
    x.add_(1.0)
    torch.cuda.synchronize()
    stop = shim.protond_session_stop(session)
    print("stop rc", stop)
print("result", float(x.sum()))
assert (start, stop) == (0, 0), "the session did not start and stop"
assert float(x.sum()) == 2048.0, "the program's result changed"
PY
find_session held
# A stopped session stops again at once; protonctl stop prints its problems.
check_output "problems of held" "$work/held_problems.txt" "${ctl[@]}" stop --session "$session"
expect_line "held's problem" "$work/held_problems.txt" \
  "problem: .*CUPTI is held by .*torch\.profiler"
check "sessions" "${ctl[@]}" sessions

echo "== the shim loaded with ctypes after CUDA is in use (no preload): its 5 add kernels"
check "the shim loaded late" env PROTOND_SOCKET="$socket" \
  python3 - "$bundle/bin/libprotond_shim.so" <<'PY'
import ctypes, sys, torch
x = torch.ones(1024, device="cuda")
torch.cuda.synchronize()
shim = ctypes.CDLL(sys.argv[1])
session = ctypes.c_uint64(0)
start = shim.protond_session_start(b"late", ctypes.byref(session))
print("start rc", start, "session", session.value)
shim.protond_scope_enter(b"late_scope")
for _ in range(5):
    x.add_(1.0)
shim.protond_scope_exit(b"late_scope")
torch.cuda.synchronize()
stop = shim.protond_session_stop(session)
print("stop rc", stop, "result", float(x[0]))
assert (start, stop) == (0, 0), "the session did not start and stop"
PY
find_session late
check "tree of late" "${ctl[@]}" tree "$session" -m time/us,count
expect_tree "late's kernels" "$session" "late_scope/~add=5" "late_scope/*=5" "*=0"
check "devices of late" "${ctl[@]}" devices "$session"

echo "== pause and resume (Proton's deactivate/activate) and the Hatchet export: 3 + 2 adds"
check "pause, resume and export" env PROTOND_SOCKET="$socket" \
  python3 - "$bundle/bin/libprotond_shim.so" "$work/paused.hatchet" <<'PY'
import ctypes, sys, torch
x = torch.ones(1024, device="cuda")
torch.cuda.synchronize()
shim = ctypes.CDLL(sys.argv[1])
session = ctypes.c_uint64(0)
assert shim.protond_session_start(b"paused", ctypes.byref(session)) == 0
def adds(n):
    for _ in range(n):
        x.add_(1.0)
    torch.cuda.synchronize()
adds(3)
codes = {"pause": shim.protond_session_pause(session)}
adds(4)
codes["resume"] = shim.protond_session_resume(session)
adds(2)
codes["stop"] = shim.protond_session_stop(session)
codes["export"] = shim.protond_session_export(session, b"hatchet", sys.argv[2].encode())
print("return codes", codes)
assert set(codes.values()) == {0}, f"a call failed: {codes}"
PY
check "paused.hatchet" python3 "$here/tests/gpu/hatchet_check.py" "$work/paused.hatchet" \
  "~add=5" "*=5"

echo "== protond.profiler (import protond.profiler as proton) on the GPU: 5 adds under s"
check "protond.profiler" in_dir "$work" env PYTHONPATH="$bundle/python" PROTOND_SOCKET="$socket" \
  python3 - <<'PY'
import json, torch
import protond.profiler as proton
x = torch.ones(1024, device="cuda")
torch.cuda.synchronize()
session = proton.start("gpu")
with proton.scope("s", metrics={"flops": 5}):
    for _ in range(5):
        x.add_(1.0)
    torch.cuda.synchronize()
proton.finalize()
root, device_info = json.load(open("gpu.hatchet"))
scope = root["children"][0]
print("hatchet", scope["frame"]["name"], scope["metrics"],
      [(k["frame"]["name"][:40], k["metrics"]) for k in scope["children"]], device_info)
assert scope["metrics"].get("flops") == 5, "scope s lost its flops"
assert device_info.get("CUDA"), "no CUDA device in device_info"
PY
check "gpu.hatchet" python3 "$here/tests/gpu/hatchet_check.py" "$work/gpu.hatchet" \
  "s/~add=5" "s/*=5" "*=0"

echo "== autograd: backward's kernels, launched by autograd's threads, under train/backward"
check "autograd" in_dir "$work" env PYTHONPATH="$bundle/python" PROTOND_SOCKET="$socket" \
  python3 - <<'PY'
import torch
import protond.profiler as proton
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).cuda()
x = torch.randn(64, 256, device="cuda")
model(x).sum().backward()  # warm-up: autograd's device thread exists before the session
torch.cuda.synchronize()
proton.start("autograd")
with proton.scope("train"):
    loss = model(x).sum()
    with proton.scope("backward"):
        loss.backward()
    torch.cuda.synchronize()
proton.finalize()
PY
# Forward: 2 matmuls, a ReLU and a sum at least; backward: more than that, and no kernel is lost
# to ROOT for want of the launching thread's scope.
check "autograd.hatchet" python3 "$here/tests/gpu/hatchet_check.py" "$work/autograd.hatchet" \
  "train/*>=4" "train/backward/*>=4" "*=0"

finish
