// The shared-memory side of buffer-type=shared: the array of rings, and the copies out of it.
#include "SharedRecords.h"

#include "mlir-instrument/buffer/buffer_layout.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::protoninstrument {

namespace {

constexpr llvm::StringLiteral kSharedRecordsName = "__proton_shared_records";
// Each record 8-aligned, so that one st.shared.v2.b32 writes it.
constexpr unsigned kRecordAlignBytes = ::protond::instrumentation::kRecordBytes;

// for (i = first; i < end; i += step) to[i] = from[i], in u32 words.
void copyLoop(DeviceEmitter &e, Value from, Value to, Value first, Value end, Value step) {
  OpBuilder &b = e.builder();
  Location loc = first.getLoc();
  auto loop = b.create<scf::ForOp>(loc, first, end, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value i = loop.getInductionVar();
  Type i32 = b.getI32Type();
  Value source = b.create<LLVM::GEPOp>(loc, from.getType(), i32, from, ValueRange{i});
  Value word = b.create<LLVM::LoadOp>(loc, i32, source);
  Value target = b.create<LLVM::GEPOp>(loc, to.getType(), i32, to, ValueRange{i});
  b.create<LLVM::StoreOp>(loc, word, target);
}

}  // namespace

Value getSharedRecords(DeviceEmitter &e, Operation *user, unsigned bytes) {
  OpBuilder &b = e.builder();
  Operation *symbolTable = SymbolTable::getNearestSymbolTable(user);
  auto global = dyn_cast_or_null<LLVM::GlobalOp>(
      SymbolTable::lookupSymbolIn(symbolTable, kSharedRecordsName));
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&symbolTable->getRegion(0).front());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes);
    global = b.create<LLVM::GlobalOp>(user->getLoc(), type, /*isConstant=*/false,
                                      LLVM::Linkage::Internal, kSharedRecordsName, Attribute(),
                                      kRecordAlignBytes, kSharedAddressSpace);
  }
  return b.create<LLVM::AddressOfOp>(user->getLoc(), global);
}

void copyWordsCooperatively(DeviceEmitter &e, Value from, Value to, unsigned words) {
  OpBuilder &b = e.builder();
  Location loc = from.getLoc();
  Type i32 = b.getI32Type();
  Value dimX = b.create<NVVM::BlockDimXOp>(loc, i32);
  Value dimY = b.create<NVVM::BlockDimYOp>(loc, i32);
  Value dimZ = b.create<NVVM::BlockDimZOp>(loc, i32);
  Value dimXY = b.create<LLVM::MulOp>(loc, dimX, dimY);
  Value threads = b.create<LLVM::MulOp>(loc, dimXY, dimZ);
  Value thread = e.linearThreadId();
  copyLoop(e, from, to, thread, e.i32(words), threads);
}

void copyWords(DeviceEmitter &e, Value from, Value to, Value words) {
  copyLoop(e, from, to, e.i32(0), words, e.i32(1));
}

}  // namespace mlir::protoninstrument
