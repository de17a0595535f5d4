// buffer-type=shared: the profiled warps' rings live in one shared-memory array per CTA
// (`__proton_shared_records`, in the gpu.module) and finalize copies them into the CTA's block of
// the profile buffer, where the global layout has them.
#ifndef PROTONINSTRUMENT_LIB_CONVERSION_PROTONGPUTOLLVM_SHAREDRECORDS_H
#define PROTONINSTRUMENT_LIB_CONVERSION_PROTONGPUTOLLVM_SHAREDRECORDS_H

#include "DeviceEmitter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::protoninstrument {

/// The address (an !llvm.ptr<3>) of the shared array of `bytes` that holds the rings, created in
/// the symbol table around `user` on first use.
Value getSharedRecords(DeviceEmitter &e, Operation *user, unsigned bytes);

/// Every thread of the CTA copies its share of `words` u32 from `from` to `to`: word i by thread
/// i mod blockDim. Only where every thread of the CTA gets here.
void copyWordsCooperatively(DeviceEmitter &e, Value from, Value to, unsigned words);

/// The calling thread copies `words` (an i32 value) u32 from `from` to `to`.
void copyWords(DeviceEmitter &e, Value from, Value to, Value words);

}  // namespace mlir::protoninstrument

#endif  // PROTONINSTRUMENT_LIB_CONVERSION_PROTONGPUTOLLVM_SHAREDRECORDS_H
