// Small builders for the lowering of proton_gpu: constants, byte offsets into the profile buffer,
// the special registers (thread, block, SM, clocks), a predicated store and a lane-guarded region.
// All values are i32 unless the name says otherwise; pointers are LLVM pointers.
#ifndef PROTONINSTRUMENT_LIB_CONVERSION_PROTONGPUTOLLVM_DEVICEEMITTER_H
#define PROTONINSTRUMENT_LIB_CONVERSION_PROTONGPUTOLLVM_DEVICEEMITTER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "mlir/IR/Builders.h"

namespace mlir::protoninstrument {

/// NVPTX's address space of shared memory (global memory is 1).
constexpr unsigned kSharedAddressSpace = 3;

class DeviceEmitter {
 public:
  DeviceEmitter(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value i32(int64_t value);
  Value i64(int64_t value);

  /// `base` + `offsetBytes` (an i32 or i64 value), same pointer type as `base`.
  Value byteOffset(Value base, Value offsetBytes);
  Value byteOffset(Value base, int64_t offsetBytes) { return byteOffset(base, i64(offsetBytes)); }
  void store(Value value, Value base, int64_t offsetBytes);

  /// tid.x + ntid.x * (tid.y + ntid.y * tid.z).
  Value linearThreadId();
  /// ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z).
  Value linearBlockId();
  Value smId();
  /// %globaltimer, ns (i64).
  Value globalTimerNs();
  /// %clock64 (i64).
  Value clock64();

  /// Stores the u32 `word0` at `address` and `word1` after it where `predicate` (i1) holds, as
  /// predicated PTX with no branch: one st.v2.b32 if `aligned8` (the address is a multiple of 8
  /// bytes), else two st.b32. `address` is a global or shared pointer.
  void storeWordPairIf(Value predicate, Value address, Value word0, Value word1, bool aligned8);

  /// Emits `body` under scf.if (`condition`); the builder continues after it.
  void ifThen(Value condition, llvm::function_ref<void()> body);

  OpBuilder &builder() { return b; }

 private:
  Value linearize(Value x, Value y, Value z, Value dimX, Value dimY);

  OpBuilder &b;
  Location loc;
};

}  // namespace mlir::protoninstrument

#endif  // PROTONINSTRUMENT_LIB_CONVERSION_PROTONGPUTOLLVM_DEVICEEMITTER_H
