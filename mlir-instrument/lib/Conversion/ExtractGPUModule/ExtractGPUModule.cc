// --proton-extract-gpu-module: leaves only the device code, as a module mlir-translate turns into
// NVPTX LLVM IR. The simplest path from a gpu.module to llc: no offloading machinery, no CUDA
// toolkit lookup inside MLIR.
#include "ProtonInstrument/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::protoninstrument {

#define GEN_PASS_DEF_PROTONEXTRACTGPUMODULE
#include "ProtonInstrument/Conversion/Passes.h.inc"

namespace {

// LLVM 19's NVPTX target, 64-bit pointers in every address space.
constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";
constexpr llvm::StringLiteral kDataLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

class ProtonExtractGPUModulePass
    : public impl::ProtonExtractGPUModuleBase<ProtonExtractGPUModulePass> {
 public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() != 1) {
      module.emitError() << "expected exactly one gpu.module to extract, found "
                         << gpuModules.size();
      return signalPassFailure();
    }
    gpu::GPUModuleOp gpuModule = gpuModules.front();
    for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations())) {
      if (&op != gpuModule.getOperation()) op.erase();
    }
    for (Operation &op : llvm::make_early_inc_range(gpuModule.getBody()->getOperations())) {
      if (!op.hasTrait<OpTrait::IsTerminator>()) op.moveBefore(gpuModule);
    }
    gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    Builder b(module.getContext());
    module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(), b.getStringAttr(kTriple));
    module->setAttr(LLVM::LLVMDialect::getDataLayoutAttrName(), b.getStringAttr(kDataLayout));
  }
};

}  // namespace

}  // namespace mlir::protoninstrument
