#ifndef PROTONINSTRUMENT_CONVERSION_PASSES_TD
#define PROTONINSTRUMENT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertProtonToProtonGPU : Pass<"convert-proton-to-protongpu", "ModuleOp"> {
  let summary = "Turns proton records into proton_gpu buffer ops, one profile buffer per kernel";
  let description = [{
    For each kernel (a `gpu.func` marked `kernel`) that holds proton records: appends the profile
    buffer as a trailing `!llvm.ptr<1>` argument, allocates this CTA's block and this warp's ring
    at entry, turns each record into read_counter + circular_store, and finalizes before every
    gpu.return. Scope ids follow the order in which names first appear in the module. The layout
    and the id -> name table go on the module (`proton.scope_names`, `proton.profile`) and, with
    `metadata-file`, into a JSON file for the host.
  }];
  let dependentDialects = ["::mlir::protongpu::ProtonGPUDialect", "::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"granularity", "granularity", "std::string", "\"warp\"",
           "Which warps write records: warp (all), warp-group (the first of each 4), cta (warp 0)">,
    Option<"bufferStrategy", "buffer-strategy", "std::string", "\"circular\"",
           "How a full ring behaves: circular (the oldest records are overwritten)">,
    Option<"bufferType", "buffer-type", "std::string", "\"global\"",
           "Where records are written: global (the profile buffer directly) or shared (shared "
           "memory, copied to the profile buffer at kernel exit)">,
    Option<"bufferSize", "buffer-size", "unsigned", "8192",
           "Bytes of record data per CTA (the header's capacity word)">,
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per CTA at launch (blockDim.x * blockDim.y * blockDim.z / 32); taken from "
           "the kernel's known_block_size where it has one">,
    Option<"metadataFile", "metadata-file", "std::string", "\"\"",
           "Writes the layout and the scope names as JSON to this path">,
  ];
}

def ConvertProtonGPUToLLVM : Pass<"convert-protongpu-to-llvm", "ModuleOp"> {
  let summary = "Lowers proton_gpu ops to the LLVM and NVVM dialects";
  let description = [{
    Writes Proton's circular buffer layout: special registers through NVVM ops (tid, ntid, ctaid,
    nctaid) and LLVM intrinsics (smid, globaltimer, clock64), lane-0 stores under scf.if (run
    --convert-scf-to-cf afterwards, before --convert-gpu-to-nvvm).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def ProtonExtractGPUModule : Pass<"proton-extract-gpu-module", "ModuleOp"> {
  let summary = "Replaces the module's contents by those of its only gpu.module";
  let description = [{
    After --convert-gpu-to-nvvm, leaves a module that mlir-translate --mlir-to-llvmir turns into
    the device's LLVM IR: the gpu.module's functions, the NVPTX triple and data layout. Host code
    beside the gpu.module is dropped.
  }];
}

#endif // PROTONINSTRUMENT_CONVERSION_PASSES_TD
