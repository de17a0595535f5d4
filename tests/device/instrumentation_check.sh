#!/usr/bin/env bash
# Intra-kernel instrumentation checks of a bundle (scripts/bundle.sh) on the GPU machine: the
# gpu-labelled test (an mlir-instrument kernel's buffers through the shim into the session's
# tree, and in a trace session's timeline), a Triton-instrumented kernel's buffer against Proton's
# own numbers, the tree, sessions and Chrome trace as a user sees them, and, with --bench, the
# kernel-time overhead of instrumentation, ours (bench/instrumentation_overhead.sh) and Proton's
# (bench/instrumentation_overhead_triton.py). Every step is checked; the exit code is 1 when any
# failed (tests/device/lib.sh).
# Usage: tests/device/instrumentation_check.sh [BUNDLE_DIR] [--bench [ROUNDS]]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
nvidia-smi -L 2>/dev/null || fail "nvidia-smi lists no GPU"

echo "== protond_instrumentation_gpu_test"
check "protond_instrumentation_gpu_test" \
  env PROTOND_BIN_DIR="$bundle/bin" "$bundle/bin/protond_instrumentation_gpu_test"

echo "== a Triton kernel instrumented by Triton's compiler, in protond and in Proton"
check "instrumentation_triton.py" python3 "$here/tests/gpu/instrumentation_triton.py" "$bundle"

start_daemon
for kernel in two_regions compute_regions; do
  echo "== $kernel under protonctl run"
  check "$kernel under protonctl run" "${ctl[@]}" run --name "$kernel" -- \
    "$bundle/bin/instrumented_workload" "$bundle/bin/kernels/$kernel/instrumented" 3
  find_session "$kernel"
  check_output "tree of $kernel" "$work/$kernel.txt" \
    "${ctl[@]}" tree "$session" -m count,cycles,normalized_cycles,time/us -d 5
  expect_tree "$kernel's launches" "$session" "instrumented/$kernel=3"
done
# 3 launches of 264 CTAs of 4 warps over 2^20 elements: a region around each warp's work, and in
# two_regions a load and a compute per 32 elements (tests/gpu/instrumentation_test.cc). In-kernel
# regions have no GPU time, so no count in a Hatchet file: their counts are read from the tree.
expect_line "two_regions' loops" "$work/two_regions.txt" "^ *3168 .*─ loop$"
expect_line "two_regions' loads" "$work/two_regions.txt" "^ *98304 .*─ load$"
expect_line "two_regions' computes" "$work/two_regions.txt" "^ *98304 .*─ compute$"
expect_line "compute_regions' kernel regions" "$work/compute_regions.txt" "^ *3168 .*─ kernel$"
expect_line "compute_regions' fma regions" "$work/compute_regions.txt" "^ *[1-9][0-9]* .*─ fma$"

echo "== two_regions in a trace session, exported as a Chrome trace"
check "two_regions in a trace session" "${ctl[@]}" run --name trace --data trace -- \
  "$bundle/bin/instrumented_workload" "$bundle/bin/kernels/two_regions/instrumented" 2
check "sessions" "${ctl[@]}" sessions
find_session trace
check "Chrome trace export" \
  "${ctl[@]}" export "$session" --format chrome -o "$work/two_regions.chrome_trace"
check "the Chrome trace's in-kernel intervals" python3 - "$work/two_regions.chrome_trace" <<'PY'
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
# 2 launches of 264 CTAs of 4 warps: a loop per warp, a load and a compute per 32 of 2^20 elements;
# a lane per warp of each CTA (more where a CTA ran on another SM the second time).
counts = {name: len(durs) for name, durs in by_name.items()}
expected = {"loop": 2 * 264 * 4, "load": 2 * (1 << 20) // 32, "compute": 2 * (1 << 20) // 32}
problems = []
if counts != expected:
    problems.append(f"intervals {counts}, expected {expected}")
if len(kernels) != 2:
    problems.append(f"{len(kernels)} kernel events, expected 2")
if len(lanes) < 264 * 4:
    problems.append(f"{len(lanes)} warp lanes, expected at least {264 * 4}")
if not sms:
    problems.append("no SM process")
print("CHECK", "OK" if not problems else "FAILED: " + "; ".join(problems))
raise SystemExit(1 if problems else 0)
PY

if [ "${2:-}" = "--bench" ]; then
  echo "== bench/instrumentation_overhead.sh"
  check "bench/instrumentation_overhead.sh" \
    "$here/bench/instrumentation_overhead.sh" "$bundle/bin" "${3:-7}" 50 2640
  echo "== bench/instrumentation_overhead_triton.py (Proton's own instrumentation)"
  check "bench/instrumentation_overhead_triton.py" \
    python3 "$here/bench/instrumentation_overhead_triton.py" "${3:-7}" 20 2640
fi
finish
