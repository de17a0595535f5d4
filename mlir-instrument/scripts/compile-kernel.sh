#!/usr/bin/env bash
# Compiles an MLIR GPU kernel with proton records into a cubin for the H100, plus the metadata the
# host needs to allocate and decode its profile buffer (docs/mlir-instrument.md).
#
#   compile-kernel.sh IN.mlir OUT_DIR [OPTION=VALUE ...]
#
# IN.mlir holds one gpu.module (kernels as gpu.func ... kernel; memrefs with static shapes, which
# become one pointer each). OPTION=VALUE pairs go to --convert-proton-to-protongpu: granularity,
# buffer-size, num-warps, buffer-type, buffer-strategy. Writes to OUT_DIR: kernel.cubin,
# metadata.json, and the steps between (kernel.llvm.mlir, kernel.ll, kernel.opt.ll, kernel.ptx).
# Tools: proton-opt ($PROTON_OPT, else this checkout's build/ or build-mlir/, else PATH),
# mlir-translate-19, opt-19, llc-19 (LLVM 19), ptxas ($PTXAS, else /usr/local/cuda/bin, else PATH).
# $SM (default 90) and $PTX (default 80: PTX ISA 8.0, which both llc 19 and CUDA 13 know) select
# the target.
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
input=$1
out=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
sm=${SM:-90}
ptx=${PTX:-80}

find_tool() {  # find_tool NAME CANDIDATE...: the first executable candidate, else NAME on PATH
  local name=$1
  shift
  for candidate in "$@"; do
    [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  command -v "$name" || { echo "compile-kernel.sh: $name not found" >&2; exit 1; }
}
proton_opt=$(find_tool proton-opt "${PROTON_OPT:-}" "$root/build/bin/proton-opt" \
  "$root/build-mlir/bin/proton-opt")
translate=$(find_tool mlir-translate-19 /usr/lib/llvm-19/bin/mlir-translate)
opt=$(find_tool opt-19 /usr/lib/llvm-19/bin/opt)
llc=$(find_tool llc-19 /usr/lib/llvm-19/bin/llc)
ptxas=$(find_tool ptxas "${PTXAS:-}" /usr/local/cuda/bin/ptxas)

mkdir -p "$out"
options="metadata-file=$out/metadata.json $*"
# The records become buffer stores (two passes of ours); scf.if from the second becomes branches
# before the kernel body is lowered to NVVM with one pointer per memref; then only the device
# code is kept, for mlir-translate.
"$proton_opt" "$input" -o "$out/kernel.llvm.mlir" --pass-pipeline="builtin.module(\
convert-proton-to-protongpu{$options},\
convert-protongpu-to-llvm,\
convert-scf-to-cf,\
gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}),\
reconcile-unrealized-casts,\
proton-extract-gpu-module,\
canonicalize,cse)"
"$translate" --mlir-to-llvmir "$out/kernel.llvm.mlir" -o "$out/kernel.ll"
# -O3 promotes each warp's write index (an alloca) to a register, as Proton relies on too.
"$opt" -O3 "$out/kernel.ll" -S -o "$out/kernel.opt.ll"
"$llc" -O3 -march=nvptx64 -mcpu="sm_$sm" -mattr="+ptx$ptx" "$out/kernel.opt.ll" -o "$out/kernel.ptx"
"$ptxas" -arch="sm_$sm" "$out/kernel.ptx" -o "$out/kernel.cubin"
echo "$out/kernel.cubin $out/metadata.json"
