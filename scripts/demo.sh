#!/usr/bin/env bash
# The demo: installs what is missing, builds, starts a private protond in a temporary directory,
# profiles the sample workload under `protonctl run` and prints its call tree; where a GPU and
# CUDA 13 are present, the CUDA sample too, with its kernels under the scopes that launched them.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_TYPE=Release TARGETS="protond protonctl sample_workload protond_shim" ./scripts/build.sh
bin=build/bin
# The GPU parts exist only when CMake found CUDA 13 with CUPTI and nvcc.
if ninja -C build -t targets all | grep -q '^sample_gpu_workload:'; then
  ninja -C build protond_cupti sample_gpu_workload
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/protond-demo-XXXXXX")
"$bin/protond" --socket "$work/protond.sock" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$work/protond.sock" ] && break; sleep 0.1; done

ctl=("$bin/protonctl" --socket "$work/protond.sock")
"${ctl[@]}" run --name demo -- "$bin/sample_workload"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "No GPU found: showing the CPU-side scopes and user metrics only."
elif [ ! -x "$bin/sample_gpu_workload" ]; then
  echo "GPU: $(nvidia-smi -L | head -1), but CUDA 13 (nvcc, CUPTI) was not found at build time:"
  echo "showing the CPU-side scopes and user metrics only."
else
  echo "GPU: $(nvidia-smi -L | head -1)"
  "${ctl[@]}" run --name demo-gpu -- "$bin/sample_gpu_workload"
fi
"${ctl[@]}" sessions
"${ctl[@]}" tree 1 -m cpu_time/ms,count,flops,bytes
if "${ctl[@]}" sessions | grep -q demo-gpu; then
  "${ctl[@]}" tree 2 -m time/us,count,bytes
fi
