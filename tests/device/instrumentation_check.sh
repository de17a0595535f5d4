#!/usr/bin/env bash
# Intra-kernel instrumentation checks of a bundle (scripts/bundle.sh) on the GPU machine: the
# gpu-labelled test (an mlir-instrument kernel's buffers through the shim into the session's
# tree), a Triton-instrumented kernel's buffer against Proton's own numbers, the tree and
# sessions as a user sees them, and, with --bench, the kernel-time overhead of instrumentation
# (bench/instrumentation_overhead.sh).
# Usage: tests/device/instrumentation_check.sh [BUNDLE_DIR] [--bench [ROUNDS]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "${1:-bundle}" && pwd)
work=$(mktemp -d)
socket=$work/protond.sock
ctl=("$bundle/bin/protonctl" --socket "$socket")
nvidia-smi -L 2>/dev/null || echo "no GPU"

echo "== protond_instrumentation_gpu_test"
PROTOND_BIN_DIR=$bundle/bin "$bundle/bin/protond_instrumentation_gpu_test"

echo "== a Triton kernel instrumented by Triton's compiler, in protond and in Proton"
python3 "$here/tests/gpu/instrumentation_triton.py" "$bundle"

"$bundle/bin/protond" --socket "$socket" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon; wait $daemon; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
for kernel in two_regions compute_regions; do
  echo "== $kernel under protonctl run"
  "${ctl[@]}" run -- "$bundle/bin/instrumented_workload" "$bundle/bin/kernels/$kernel/instrumented" 3
done
"${ctl[@]}" sessions
for session in 1 2; do
  "${ctl[@]}" tree "$session" -m cycles,normalized_cycles,time/us -d 4
done

if [ "${2:-}" = "--bench" ]; then
  echo "== bench/instrumentation_overhead.sh"
  "$here/bench/instrumentation_overhead.sh" "$bundle/bin" "${3:-7}" 50 2640
fi
