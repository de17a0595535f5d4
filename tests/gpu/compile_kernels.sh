#!/usr/bin/env bash
# Compiles the instrumented kernels of the GPU tests and benchmarks with mlir-instrument, each
# four times: OUT/NAME/instrumented (with its proton records, into global memory, every warp),
# OUT/NAME/warpgroup (granularity=warp-group: one warp of four records), OUT/NAME/shared (records
# kept in shared memory until the kernel ends: buffer-type=shared) and OUT/NAME/plain (records
# removed: the same kernel without instrumentation, for bench/instrumentation_overhead.sh). Run by the build
# (tests/CMakeLists.txt) when MLIR 19 is there.
#
#   compile_kernels.sh PROTON_OPT OUT KERNEL.mlir...
set -euo pipefail
proton_opt=$1
out=$2
shift 2
compile=$(dirname "$0")/../../mlir-instrument/scripts/compile-kernel.sh
for source in "$@"; do
  name=$(basename "$source" .mlir)
  PROTON_OPT=$proton_opt "$compile" "$source" "$out/$name/instrumented" >/dev/null
  PROTON_OPT=$proton_opt "$compile" "$source" "$out/$name/warpgroup" granularity=warp-group \
    >/dev/null
  PROTON_OPT=$proton_opt "$compile" "$source" "$out/$name/shared" buffer-type=shared >/dev/null
  mkdir -p "$out/$name/plain"
  sed '/proton\.record/d' "$source" >"$out/$name/plain/kernel.mlir"
  PROTON_OPT=$proton_opt "$compile" "$out/$name/plain/kernel.mlir" "$out/$name/plain" >/dev/null
  # Without records there is no instrumented kernel for the metadata to name.
  printf '{"kernel_name": "%s", "num_warps": 4}\n' "$name" >"$out/$name/plain/metadata.json"
done
