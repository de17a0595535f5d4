// The NVPTX specifics of the lowering: special registers through NVVM ops where MLIR 19 has them
// (tid, ntid, ctaid, nctaid) and through LLVM intrinsics where it has not (smid, globaltimer) or
// where its op would be merged away (clock64); and inline PTX for a predicated store, which LLVM
// cannot express.
#include "DeviceEmitter.h"

#include <string>

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::protoninstrument {

Value DeviceEmitter::i32(int64_t value) {
  return b.create<LLVM::ConstantOp>(loc, b.getI32Type(), b.getI32IntegerAttr(value));
}

Value DeviceEmitter::i64(int64_t value) {
  return b.create<LLVM::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(value));
}

Value DeviceEmitter::byteOffset(Value base, Value offsetBytes) {
  return b.create<LLVM::GEPOp>(loc, base.getType(), b.getI8Type(), base, ValueRange{offsetBytes});
}

void DeviceEmitter::store(Value value, Value base, int64_t offsetBytes) {
  b.create<LLVM::StoreOp>(loc, value, byteOffset(base, offsetBytes));
}

// x + dimX * (y + dimY * z): the linear index of a 3-D id, x fastest.
Value DeviceEmitter::linearize(Value x, Value y, Value z, Value dimX, Value dimY) {
  Value zPlane = b.create<LLVM::MulOp>(loc, dimY, z);
  Value yz = b.create<LLVM::AddOp>(loc, y, zPlane);
  Value yzRows = b.create<LLVM::MulOp>(loc, dimX, yz);
  return b.create<LLVM::AddOp>(loc, x, yzRows);
}

Value DeviceEmitter::linearThreadId() {
  Type t = b.getI32Type();
  Value x = b.create<NVVM::ThreadIdXOp>(loc, t);
  Value y = b.create<NVVM::ThreadIdYOp>(loc, t);
  Value z = b.create<NVVM::ThreadIdZOp>(loc, t);
  Value dimX = b.create<NVVM::BlockDimXOp>(loc, t);
  Value dimY = b.create<NVVM::BlockDimYOp>(loc, t);
  return linearize(x, y, z, dimX, dimY);
}

Value DeviceEmitter::linearBlockId() {
  Type t = b.getI32Type();
  Value x = b.create<NVVM::BlockIdXOp>(loc, t);
  Value y = b.create<NVVM::BlockIdYOp>(loc, t);
  Value z = b.create<NVVM::BlockIdZOp>(loc, t);
  Value dimX = b.create<NVVM::GridDimXOp>(loc, t);
  Value dimY = b.create<NVVM::GridDimYOp>(loc, t);
  return linearize(x, y, z, dimX, dimY);
}

Value DeviceEmitter::smId() {
  return b
      .create<LLVM::CallIntrinsicOp>(loc, b.getI32Type(), "llvm.nvvm.read.ptx.sreg.smid",
                                     ValueRange{})
      .getResult(0);
}

Value DeviceEmitter::globalTimerNs() {
  return b
      .create<LLVM::CallIntrinsicOp>(loc, b.getI64Type(), "llvm.nvvm.read.ptx.sreg.globaltimer",
                                     ValueRange{})
      .getResult(0);
}

// Not NVVM::Clock64Op: MLIR 19 declares it Pure, so CSE would merge every read into the first.
// An intrinsic call has side effects in MLIR; in LLVM the intrinsic reads inaccessible memory,
// which keeps the reads apart and in order.
Value DeviceEmitter::clock64() {
  return b
      .create<LLVM::CallIntrinsicOp>(loc, b.getI64Type(), "llvm.nvvm.read.ptx.sreg.clock64",
                                     ValueRange{})
      .getResult(0);
}

// Inline PTX like Triton's Proton: "b" binds the i1 to a predicate register, "l" the 64-bit
// address (shared pointers are 64-bit too without nvptx-short-ptr, and hold a .shared address).
void DeviceEmitter::storeWordPairIf(Value predicate, Value address, Value word0, Value word1,
                                    bool aligned8) {
  auto pointer = cast<LLVM::LLVMPointerType>(address.getType());
  std::string st = pointer.getAddressSpace() == kSharedAddressSpace ? "st.shared" : "st.global";
  std::string ptx = aligned8 ? "@$0 " + st + ".v2.b32 [$1], {$2, $3};"
                             : "@$0 " + st + ".b32 [$1], $2;\n\t@$0 " + st + ".b32 [$1+4], $3;";
  b.create<LLVM::InlineAsmOp>(loc, TypeRange{}, ValueRange{predicate, address, word0, word1}, ptx,
                              "b,l,r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
                              LLVM::AsmDialectAttr(), ArrayAttr());
}

void DeviceEmitter::ifThen(Value condition, llvm::function_ref<void()> body) {
  auto ifOp = b.create<scf::IfOp>(loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

}  // namespace mlir::protoninstrument
