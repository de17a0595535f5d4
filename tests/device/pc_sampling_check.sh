#!/usr/bin/env bash
# PC sampling checks of a bundle (scripts/bundle.sh) on the GPU machine: the gpu-labelled PC
# sampling test (CUDA C++ with line info), the Triton kernel under protond.profiler beside
# Proton, `protonctl top --stalls` and `tree` (with `-f sass`) of the CUDA workload, and, with --bench, the
# overhead benchmark against Proton's pcsampling mode.
# Usage: tests/device/pc_sampling_check.sh [BUNDLE_DIR] [--bench [ROUNDS]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "${1:-bundle}" && pwd)
work=$(mktemp -d)
socket=$work/protond.sock
ctl=("$bundle/bin/protonctl" --socket "$socket")
nvidia-smi -L 2>/dev/null || echo "no GPU"

echo "== protond_pc_sampling_test"
PROTOND_BIN_DIR=$bundle/bin "$bundle/bin/protond_pc_sampling_test"

echo "== a Triton kernel under protond.profiler and Proton"
python3 "$here/tests/gpu/pc_sampling_triton.py" "$bundle"

"$bundle/bin/protond" --socket "$socket" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon; wait $daemon; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
echo "== stall_workload under protonctl run --mode pcsampling:interval=1024"
"${ctl[@]}" run --mode pcsampling:interval=1024 -- "$bundle/bin/stall_workload" 2
"${ctl[@]}" sessions
"${ctl[@]}" top 1 --stalls -n 8
"${ctl[@]}" tree 1 -m num_samples,stalled_long_scoreboard,time/ms -d 4
echo "== the same with its SASS instructions (tree -f sass), the load line's top 8"
"${ctl[@]}" tree 1 -f sass -m num_samples,stalled_long_scoreboard -d 5 -i chase | head -16

if [ "${2:-}" = "--bench" ]; then
  echo "== bench/pc_sampling_overhead.py"
  python3 "$here/bench/pc_sampling_overhead.py" "$bundle" "${3:-5}" 1
fi
