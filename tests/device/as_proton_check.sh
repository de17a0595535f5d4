#!/usr/bin/env bash
# Proton scripts left unchanged, with the real Triton, on the GPU machine: `protonctl run
# --as-proton` (triton.profiler is protond.profiler, the rest of Triton is Triton's), also with
# Proton's launcher module, `python -m triton.profiler.proton`.
# Usage: tests/device/as_proton_check.sh [BUNDLE_DIR]
set -uo pipefail
bundle=$(cd "${1:-bundle}" && pwd)
work=$(mktemp -d)
socket=$work/protond.sock
ctl=("$bundle/bin/protonctl" --socket "$socket")
"$bundle/bin/protond" --socket "$socket" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon; wait $daemon; echo "== protond log"; tail -20 "$work/protond.log"; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done

cat >"$work/proton_script.py" <<'PY'
import json
import sys
import torch
import triton
import triton.language as tl
import triton.profiler as proton
from triton.profiler import scope
import protond.profiler


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)


print("aliased:", proton is protond.profiler, "real triton:", triton.__version__, triton.__file__)
x = torch.zeros(4096, device="cuda")
add_one[(4,)](x, 4096, BLOCK=1024)  # compiled before profiling
torch.cuda.synchronize()
session = proton.start(sys.argv[1])
print("session", session)
with scope("w_triton", metrics={"flops": 5}):
    for _ in range(5):
        add_one[(4,)](x, 4096, BLOCK=1024)
    torch.cuda.synchronize()
with proton.scope("w_torch"):
    for _ in range(3):
        x.add_(1.0)
    torch.cuda.synchronize()
proton.finalize()
print("x", x[0].item())
PY

summary() {
  python3 - "$1" <<'PY'
import json, sys
root, device_info = json.load(open(sys.argv[1]))
for node in root["children"]:
    print("hatchet", node["frame"]["name"], node["metrics"],
          [(k["frame"]["name"][:50], k["metrics"].get("count")) for k in node["children"]])
print("devices", list(device_info.get("CUDA", {})))
PY
}

echo "== protonctl run --as-proton -- python3 proton_script.py (expect add_one x5 under w_triton)"
(cd "$work" && "${ctl[@]}" run --as-proton --name as_proton -- python3 proton_script.py direct)
summary "$work/direct.hatchet"
"${ctl[@]}" tree 1 -m time/us,count -d 3

echo "== protonctl run --as-proton -- python3 -m triton.profiler.proton -n launched -k triton (start ignored)"
(cd "$work" && "${ctl[@]}" run --as-proton --name launcher -- \
  python3 -m triton.profiler.proton -n launched -k triton proton_script.py ignored)
summary "$work/launched.hatchet"
ls "$work"/ignored.hatchet 2>/dev/null && echo "UNEXPECTED: ignored.hatchet written"

echo "== sessions (expect as_proton and launcher only)"
"${ctl[@]}" sessions
