#!/usr/bin/env bash
# GPU check of proton.start(data="trace") with a bundle (scripts/bundle.sh) on the GPU machine: a
# torch op and a Triton kernel (launch hook) in scopes, finalize() writes trace.chrome_trace; the
# script prints its lanes, kernel events and launch flows, and checks them. The exit code is 1
# when any check failed (tests/device/lib.sh).
# Usage: tests/device/trace_check.sh [BUNDLE_DIR]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
nvidia-smi -L 2>/dev/null || fail "nvidia-smi lists no GPU"
start_daemon

echo "== data=\"trace\": torch add_ x5 under w_torch, Triton add_one x3 under w_triton"
# Triton's @jit reads its kernel's source: the program must be a file.
cat >"$work/trace_program.py" <<'PY'
import json
import torch
import triton
import triton.language as tl
import protond.profiler as proton

@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)

x = torch.ones(1 << 16, device="cuda")
add_one[(64,)](x, x.numel(), BLOCK=1024)  # compiled before the session
torch.cuda.synchronize()

proton.start("trace", data="trace", hook="triton")
with proton.scope("w_torch"):
    for _ in range(5):
        x.add_(1.0)
    torch.cuda.synchronize()
with proton.scope("w_triton"):
    for _ in range(3):
        add_one[(64,)](x, x.numel(), BLOCK=1024)
    torch.cuda.synchronize()
proton.finalize()
print("result", float(x[0]), "(expected 10.0: 1, +1 before the session, +5, +3)")

trace = json.load(open("trace.chrome_trace"))
events = trace["traceEvents"]
print("displayTimeUnit", trace["displayTimeUnit"], "baseTimeNanoseconds", trace["baseTimeNanoseconds"])
print("lanes", sorted((e["tid"], e["args"]["name"]) for e in events if e["ph"] == "M"))
scopes = [e for e in events if e.get("cat") == "scope"]
kernels = [e for e in events if e.get("cat") == "kernel"]
flows = {}
for e in events:
    if e["ph"] in ("s", "f"):
        flows.setdefault(e["id"], {})[e["ph"]] = e
for e in scopes:
    print("scope", e["name"], "tid", e["tid"], "ts %.3f dur %.3f" % (e["ts"], e["dur"]),
          e["args"]["call_stack"])
for e in sorted(kernels, key=lambda e: e["ts"]):
    print("kernel", e["name"][:50], "tid", e["tid"], "ts %.3f dur %.3f" % (e["ts"], e["dur"]),
          "stack", [f[:30] for f in e["args"]["call_stack"]], "corr", e["args"]["correlation_id"])
for flow_id, pair in sorted(flows.items()):
    print("flow", flow_id, "s tid", pair["s"]["tid"], "ts %.3f" % pair["s"]["ts"],
          "-> f tid", pair["f"]["tid"], "ts %.3f" % pair["f"]["ts"], "bp", pair["f"].get("bp"))

by_scope = {name: [k for k in kernels if k["args"]["call_stack"][1] == name]
            for name in ("w_torch", "w_triton")}
problems = []
if float(x[0]) != 10.0:
    problems.append(f"result {float(x[0])}, expected 10.0")
if len(by_scope["w_torch"]) != 5:
    problems.append(f"{len(by_scope['w_torch'])} kernels under w_torch, expected 5")
if [k["name"] for k in by_scope["w_triton"]] != ["add_one"] * 3:
    problems.append(f"kernels under w_triton: {[k['name'] for k in by_scope['w_triton']]}")
if any(not 200000 <= k["tid"] < 300000 for k in kernels):
    problems.append("a kernel outside the GPU stream lanes")
if len(flows) != 8 or any(set(p) != {"s", "f"} for p in flows.values()):
    problems.append(f"{len(flows)} flows, expected 8 complete s/f pairs")
for name, under in by_scope.items():
    scope = [s for s in scopes if s["name"] == name]
    if len(scope) != 1:
        problems.append(f"{len(scope)} instances of scope {name}, expected 1")
    elif any(k["ts"] < scope[0]["ts"] for k in under):
        problems.append(f"a kernel under {name} starts before the scope")
if len(kernels) != 8:
    problems.append(f"{len(kernels)} kernels in all, expected 8")
print("CHECK", "OK" if not problems else "FAILED: " + "; ".join(problems))
raise SystemExit(1 if problems else 0)
PY
check "data=\"trace\"" in_dir "$work" env PYTHONPATH="$bundle/python" PROTOND_SOCKET="$socket" \
  python3 trace_program.py
finish
