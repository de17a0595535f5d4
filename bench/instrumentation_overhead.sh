#!/usr/bin/env bash
# Kernel time with intra-kernel instrumentation against the same kernel without its records, on
# the GPU: a memory-bound kernel (mlir-instrument/examples/two_regions.mlir) and compute-bound
# ones with a scope every 16 multiply-adds (tests/gpu/compute_regions.mlir) and every 128
# (tests/gpu/compute_blocks.mlir), compiled by the build into BIN/kernels
# (tests/gpu/compile_kernels.sh): without records, with records in global memory, and with
# records in shared memory (buffer-type=shared). Each round runs the three variants of a kernel
# one after the other (interleaved, so drift hits all alike; the order turns by one each round,
# so that no variant is always first), each LAUNCHES launches, and takes
# the median kernel time (CUDA events) of the launches; the script prints every round's ratios
# to the plain kernel, then their median and range over the rounds.
#
#   bench/instrumentation_overhead.sh BIN [ROUNDS [LAUNCHES [BLOCKS]]]
set -euo pipefail
bin=$1
rounds=${2:-7}
launches=${3:-50}
blocks=${4:-264}

median_us() {  # median_us KERNEL_DIR: the runner's median kernel time, in microseconds
  "$bin/instrumented_workload" --time "$1" "$launches" "$blocks" |
    sed -n 's/.*median \([0-9.]*\) us$/\1/p'
}

summary() {  # summary LABEL RATIO...: median and range
  local label=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v k="$label" '
    { r[NR] = $1 }
    END { printf "%s: median %.3fx of plain (min %.3f, max %.3f, %d rounds)\n",
          k, r[int((NR + 1) / 2)], r[1], r[NR], NR }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

for kernel in two_regions compute_regions compute_blocks; do
  global=()
  shared=()
  for round in $(seq "$rounds"); do
    declare -A us=()
    variants=(plain instrumented shared)
    for i in 0 1 2; do
      variant=${variants[$(((i + round) % 3))]}
      us[$variant]=$(median_us "$bin/kernels/$kernel/$variant")
    done
    plain=${us[plain]}
    in_global=${us[instrumented]}
    in_shared=${us[shared]}
    global+=("$(ratio "$in_global" "$plain")")
    shared+=("$(ratio "$in_shared" "$plain")")
    echo "$kernel round $round: plain $plain us, global $in_global us, shared $in_shared us"
  done
  summary "$kernel global" "${global[@]}"
  summary "$kernel shared" "${shared[@]}"
done
