#!/usr/bin/env bash
# PC sampling checks of a bundle (scripts/bundle.sh) on the GPU machine: the gpu-labelled PC
# sampling test (CUDA C++ with line info), the Triton kernel under protond.profiler beside
# Proton, `protonctl top --stalls` and `tree` (with `-f sass`) of the CUDA workload, and, with
# --bench, the overhead benchmark against Proton's pcsampling mode. Every step is checked; the
# exit code is 1 when any failed (tests/device/lib.sh).
# Usage: tests/device/pc_sampling_check.sh [BUNDLE_DIR] [--bench [ROUNDS]]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
nvidia-smi -L 2>/dev/null || fail "nvidia-smi lists no GPU"

echo "== protond_pc_sampling_test"
check "protond_pc_sampling_test" \
  env PROTOND_BIN_DIR="$bundle/bin" "$bundle/bin/protond_pc_sampling_test"

echo "== a Triton kernel under protond.profiler and Proton"
check "pc_sampling_triton.py" python3 "$here/tests/gpu/pc_sampling_triton.py" "$bundle"

start_daemon
echo "== stall_workload under protonctl run --mode pcsampling:interval=1024"
check_output "stall_workload under protonctl run" "$work/run.txt" \
  "${ctl[@]}" run --name stalls --mode pcsampling:interval=1024 -- "$bundle/bin/stall_workload" 2
# "stall_workload: chase line N, spin line M": where the samples must be.
chase_line=$(sed -n 's/^stall_workload: chase line \([0-9]*\),.*/\1/p' "$work/run.txt")
[ -n "$chase_line" ] || fail "stall_workload did not say its chase line"
find_session stalls
check_output "sessions" "$work/sessions.txt" "${ctl[@]}" sessions
expect_line "the session's mode" "$work/sessions.txt" "^ *[0-9]+  stalls .*pcsampling"
check_output "top --stalls" "$work/top.txt" "${ctl[@]}" top "$session" --stalls -n 8
# The pointer chase's load line waits on memory above all.
expect_line "top --stalls" "$work/top.txt" \
  "^ *[0-9]+ +[0-9.]+ +[0-9]+  long_scoreboard [0-9]+%.*stall_workload\.cu:${chase_line:-?}@chase$"
check "tree" "${ctl[@]}" tree "$session" -m num_samples,stalled_long_scoreboard,time/ms -d 4
expect_tree "stall_workload's kernels" "$session" "memory/chase>=1" "math/spin>=1"
echo "== the same with its SASS instructions (tree -f sass -i chase)"
check_output "tree -f sass" "$work/sass.txt" \
  "${ctl[@]}" tree "$session" -f sass -m num_samples,stalled_long_scoreboard -d 5 -i chase
# Instructions are named by their offsets ("0x0170  LDG.E ..."; offsets only without nvdisasm).
expect_line "tree -f sass" "$work/sass.txt" "0x[0-9a-f]{4,}"

if [ "${2:-}" = "--bench" ]; then
  echo "== bench/pc_sampling_overhead.py"
  check "bench/pc_sampling_overhead.py" \
    python3 "$here/bench/pc_sampling_overhead.py" "$bundle" "${3:-5}" 1
fi
finish
