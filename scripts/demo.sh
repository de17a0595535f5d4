#!/usr/bin/env bash
# The demo: installs what is missing, builds, starts a private protond in a temporary directory,
# profiles the sample workload under `protonctl run` and prints its call tree.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_TYPE=Release TARGETS="protond protonctl sample_workload protond_shim" ./scripts/build.sh
bin=build/bin

work=$(mktemp -d "${TMPDIR:-/tmp}/protond-demo-XXXXXX")
"$bin/protond" --socket "$work/protond.sock" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$work/protond.sock" ] && break; sleep 0.1; done

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU: $(nvidia-smi -L | head -1)"
else
  echo "No GPU found: showing the CPU-side scopes and user metrics only."
fi
ctl=("$bin/protonctl" --socket "$work/protond.sock")
"${ctl[@]}" run --name demo -- "$bin/sample_workload"
"${ctl[@]}" sessions
"${ctl[@]}" tree 1 -m cpu_time/ms,count,flops,bytes
