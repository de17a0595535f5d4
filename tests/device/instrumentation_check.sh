#!/usr/bin/env bash
# Intra-kernel instrumentation checks of a bundle (scripts/bundle.sh) on the GPU machine: the
# gpu-labelled test (an mlir-instrument kernel's buffers through the shim into the session's
# tree, and in a trace session's timeline), a Triton-instrumented kernel's buffer against Proton's
# own numbers, the tree, sessions and Chrome trace as a user sees them, and, with --bench, the
# kernel-time overhead of instrumentation, ours (bench/instrumentation_overhead.sh) and Proton's
# (bench/instrumentation_overhead_triton.py).
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
echo "== two_regions in a trace session, exported as a Chrome trace"
"${ctl[@]}" run --data trace -- "$bundle/bin/instrumented_workload" \
  "$bundle/bin/kernels/two_regions/instrumented" 2
"${ctl[@]}" sessions
for session in 1 2; do
  "${ctl[@]}" tree "$session" -m cycles,normalized_cycles,time/us -d 4
done
"${ctl[@]}" export 3 --format chrome -o "$work/two_regions.chrome_trace"
python3 - "$work/two_regions.chrome_trace" <<'PY'
import collections, json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
sms = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
lanes = [e for e in events if e.get("name") == "thread_name" and e["pid"] != 0]
scopes = [e for e in events if e.get("cat") == "kernel_scope"]
kernels = [e for e in events if e.get("cat") == "kernel"]
print(f"{len(sms)} SM processes, {len(lanes)} warp lanes, {len(scopes)} in-kernel intervals")
print("kernels (ts, dur us):", [(round(k["ts"], 3), round(k["dur"], 3)) for k in kernels])
by_name = collections.defaultdict(list)
for e in scopes:
    by_name[e["name"]].append(e["dur"])
for name, durs in sorted(by_name.items()):
    durs.sort()
    print(f"{name}: {len(durs)} intervals, median {durs[len(durs) // 2]:.3f} us")
PY

if [ "${2:-}" = "--bench" ]; then
  echo "== bench/instrumentation_overhead.sh"
  "$here/bench/instrumentation_overhead.sh" "$bundle/bin" "${3:-7}" 50 2640
  echo "== bench/instrumentation_overhead_triton.py (Proton's own instrumentation)"
  python3 "$here/bench/instrumentation_overhead_triton.py" "${3:-7}" 20 2640
fi
