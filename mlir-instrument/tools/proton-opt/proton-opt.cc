// proton-opt: mlir-opt with the `proton` and `proton_gpu` dialects, the upstream dialects a GPU
// kernel is written in, and the passes that lower both to LLVM/NVVM.
#include "ProtonInstrument/Conversion/Passes.h"
#include "ProtonInstrument/Dialect/Proton/IR/Proton.h"
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPU.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::index::IndexDialect, mlir::LLVM::LLVMDialect,
                  mlir::memref::MemRefDialect, mlir::NVVM::NVVMDialect, mlir::scf::SCFDialect,
                  mlir::proton::ProtonDialect, mlir::protongpu::ProtonGPUDialect>();
  // What --convert-gpu-to-nvvm asks each loaded dialect for, to lower the kernel's body.
  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::registerConvertFuncToLLVMInterface(registry);
  mlir::index::registerConvertIndexToLLVMInterface(registry);
  mlir::registerConvertMemRefToLLVMInterface(registry);
  mlir::registerConvertNVVMToLLVMInterface(registry);

  mlir::registerTransformsPasses();
  mlir::registerConversionPasses();
  mlir::protoninstrument::registerProtonInstrumentPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "proton-opt: instruments GPU kernels with proton scopes\n", registry));
}
