#!/usr/bin/env bash
# GPU checks of a bundle (scripts/bundle.sh) on the GPU machine: the gpu-labelled tests, the CUDA
# sample's tree and devices, and an unmodified PyTorch program (with NVTX ranges) under
# protonctl run.
# Usage: tests/device/gpu_check.sh [BUNDLE_DIR]
set -uo pipefail
bundle=$(cd "${1:-bundle}" && pwd)
work=$(mktemp -d)
socket=$work/protond.sock
ctl=("$bundle/bin/protonctl" --socket "$socket")
nvidia-smi -L 2>/dev/null || echo "no GPU"

echo "== GPU tests"
PROTOND_BIN_DIR=$bundle/bin "$bundle/bin/protond_gpu_run_test"

"$bundle/bin/protond" --socket "$socket" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon; wait $daemon; echo "== protond log"; tail -20 "$work/protond.log"; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done

echo "== sample_gpu_workload under protonctl run"
"${ctl[@]}" run --name sample-gpu -- "$bundle/bin/sample_gpu_workload"
"${ctl[@]}" tree 1 -m time/us,count,bytes
"${ctl[@]}" devices 1

echo "== PyTorch, unmodified, under protonctl run"
"${ctl[@]}" run --name torch -- python3 - <<'PY'
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
PY
"${ctl[@]}" tree 2 -m time/us,count   # expect nvtx_outer/nvtx_inner/<mul kernel> x7
"${ctl[@]}" devices 2

echo "== a session started while torch.profiler holds CUPTI (expect a problem naming it)"
LD_PRELOAD=$bundle/bin/libprotond_shim.so PROTOND_SOCKET=$socket python3 - "$bundle/bin/libprotond_shim.so" <<'PY'
import ctypes, sys, torch
shim = ctypes.CDLL(sys.argv[1])
x = torch.ones(1024, device="cuda")
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
    session = ctypes.c_uint64(0)
    print("start rc", shim.protond_session_start(b"held", ctypes.byref(session)))
    x.add_(1.0)
    torch.cuda.synchronize()
    print("stop rc", shim.protond_session_stop(session))
print("result", float(x.sum()))
PY
"${ctl[@]}" sessions

echo "== the shim loaded with ctypes after CUDA is in use (no preload; expect 5 add kernels)"
PROTOND_SOCKET=$socket python3 - "$bundle/bin/libprotond_shim.so" <<'PY'
import ctypes, sys, torch
x = torch.ones(1024, device="cuda")
torch.cuda.synchronize()
shim = ctypes.CDLL(sys.argv[1])
session = ctypes.c_uint64(0)
print("start rc", shim.protond_session_start(b"late", ctypes.byref(session)), "session", session.value)
shim.protond_scope_enter(b"late_scope")
for _ in range(5):
    x.add_(1.0)
shim.protond_scope_exit(b"late_scope")
torch.cuda.synchronize()
print("stop rc", shim.protond_session_stop(session), "result", float(x[0]))
PY
"${ctl[@]}" tree 4 -m time/us,count
"${ctl[@]}" devices 4

echo "== pause and resume (Proton's deactivate/activate) and the Hatchet export (expect count 5)"
PROTOND_SOCKET=$socket python3 - "$bundle/bin/libprotond_shim.so" "$work/paused.hatchet" <<'PY'
import ctypes, json, sys, torch
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
print("pause rc", shim.protond_session_pause(session))
adds(4)
print("resume rc", shim.protond_session_resume(session))
adds(2)
print("stop rc", shim.protond_session_stop(session))
print("export rc", shim.protond_session_export(session, b"hatchet", sys.argv[2].encode()))
root, device_info = json.load(open(sys.argv[2]))
for node in root["children"]:
    print("hatchet node", node["frame"]["name"][:60], node["metrics"])
print("hatchet root metrics", root["metrics"], "device_info", device_info)
PY

echo "== protond.profiler (import protond.profiler as proton) on the GPU (expect add kernel x5 under s)"
(cd "$work" && PYTHONPATH=$bundle/python PROTOND_SOCKET=$socket python3 - <<'PY'
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
PY
)

echo "== autograd: backward kernels run on autograd's threads; expect them under train/backward, none under ROOT"
(cd "$work" && PYTHONPATH=$bundle/python PROTOND_SOCKET=$socket python3 - <<'PY'
import json, torch
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
root, _ = json.load(open("autograd.hatchet"))
def walk(node, path):
    for child in node["children"]:
        name = child["frame"]["name"]
        if "count" in child["metrics"]:
            print("kernel", "/".join(path) or "ROOT", name[:50], child["metrics"]["count"])
        walk(child, path + [name])
walk(root, [])
PY
)
