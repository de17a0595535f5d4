#!/usr/bin/env bash
# The GPU performance guard: bare CUPTI against protond on the same workloads (tiny torch ops,
# small Triton launches, matmuls), paired off/on rounds inside each process (bench/gpu_overhead.py
# --guard). Exits non-zero when protond's session stop costs the program more than 20 ms, or its
# overhead exceeds bare CUPTI's by more than 5% on any workload. Every change to shim/ or CUPTI
# code runs it on the GPU machine, and its note quotes what it printed. One round's on/off ratio
# of the Triton launches spreads from 0.7 to 1.6 on the H200: the default of 15 rounds in 2
# processes (30 samples a side) keeps the medians' noise under the 5% limit, where 7 or 9 rounds
# failed a tree that passed the next run (docs/performance.md).
# Usage: tests/device/perf_guard.sh [BUNDLE_DIR] [ROUNDS] [PROCESSES]
set -euo pipefail
bundle=$(cd "${1:-bundle}" && pwd)
cd "$(dirname "$0")/../../bench"
nvidia-smi -L
python3 gpu_overhead.py "$bundle" "${2:-15}" "${3:-2}" --profilers cupti,protond --guard
