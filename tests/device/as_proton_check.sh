#!/usr/bin/env bash
# Proton scripts left unchanged, with the real Triton, on the GPU machine: `protonctl run
# --as-proton` (triton.profiler is protond.profiler, the rest of Triton is Triton's), also with
# Proton's launcher module, `python -m triton.profiler.proton`. Every step is checked; the exit
# code is 1 when any failed (tests/device/lib.sh).
# Usage: tests/device/as_proton_check.sh [BUNDLE_DIR]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
start_daemon

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

# The script's output and file, however it was started: triton.profiler is protond's, the rest
# is the real Triton; 5 add_one launches under w_triton, 3 torch adds under w_torch, and x = 1
# (warm-up) + 5 + 3. RULES...: what else the file holds outside the scopes.
check_script() {
  local what=$1 out=$2 hatchet=$3
  shift 3
  expect_line "$what: triton.profiler is protond.profiler" "$out" "^aliased: True real triton: "
  expect_line "$what: the program's result" "$out" "^x 9\.0$"
  check "$what: $(basename "$hatchet")" python3 - "$hatchet" <<'PY'
import json, sys
root, device_info = json.load(open(sys.argv[1]))
for node in root["children"]:
    print("hatchet", node["frame"]["name"], node["metrics"],
          [(k["frame"]["name"][:50], k["metrics"].get("count")) for k in node["children"]])
print("devices", list(device_info.get("CUDA", {})))
assert device_info.get("CUDA"), "no CUDA device in device_info"
w_triton = [n for n in root["children"] if n["frame"]["name"] == "w_triton"]
assert w_triton and w_triton[0]["metrics"].get("flops") == 5, "w_triton lost its flops"
PY
  check "$what: kernels of $(basename "$hatchet")" python3 "$here/tests/gpu/hatchet_check.py" \
    "$hatchet" "w_triton/add_one=5" "w_triton/*=5" "w_torch/~add=3" "w_torch/*=3" "$@"
}

echo "== protonctl run --as-proton -- python3 proton_script.py: add_one x5 under w_triton"
check_output "protonctl run --as-proton" "$work/direct.txt" \
  in_dir "$work" "${ctl[@]}" run --as-proton --name as_proton -- python3 proton_script.py direct
check_script "as_proton" "$work/direct.txt" "$work/direct.hatchet" "*=0"
find_session as_proton
check "tree of as_proton" "${ctl[@]}" tree "$session" -m time/us,count -d 3

echo "== protonctl run --as-proton -- python3 -m triton.profiler.proton -n launched -k triton"
echo "   (the script's start() is ignored)"
check_output "protonctl run --as-proton with Proton's launcher" "$work/launched.txt" \
  in_dir "$work" "${ctl[@]}" run --as-proton --name launcher -- \
  python3 -m triton.profiler.proton -n launched -k triton proton_script.py ignored
# The launcher's session began before the script: its warm-up launch is outside any scope.
check_script "launcher" "$work/launched.txt" "$work/launched.hatchet" "add_one=1"
[ ! -e "$work/ignored.hatchet" ] || fail "ignored.hatchet written: the launcher's -n must win"

echo "== sessions: as_proton and launcher only (start() joins the run's session)"
check_output "sessions" "$work/sessions.txt" "${ctl[@]}" sessions
names=$(awk 'NR > 1 { print $2 }' "$work/sessions.txt" | sort | tr '\n' ' ')
[ "$names" = "as_proton launcher " ] ||
  fail "sessions named '$names', expected as_proton and launcher"
finish
