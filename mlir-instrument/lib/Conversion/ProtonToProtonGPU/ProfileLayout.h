// The profile buffer's layout chosen by --convert-proton-to-protongpu, and the two places it is
// published: attributes on the module and the JSON metadata file the host reads
// (docs/mlir-instrument.md, "The metadata JSON").
#ifndef PROTONINSTRUMENT_LIB_CONVERSION_PROTONTOPROTONGPU_PROFILELAYOUT_H
#define PROTONINSTRUMENT_LIB_CONVERSION_PROTONTOPROTONGPU_PROFILELAYOUT_H

#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::protoninstrument {

struct ProfileLayout {
  std::string granularity;     // warp | warp-group | cta
  std::string bufferStrategy;  // circular
  std::string bufferType;      // global
  unsigned numWarps = 0;       // warps per CTA at launch
  unsigned warpStride = 0;     // warp w writes iff w % warpStride == 0
  unsigned profiledWarps = 0;  // numWarps / warpStride
  unsigned headerBytes = 0;    // 40 + 4 * numWarps
  unsigned dataBytes = 0;      // header word 3: the capacity
  unsigned segmentBytes = 0;   // one profiled warp's ring: dataBytes / profiledWarps
  unsigned blockBytes = 0;     // one CTA: align_up(dataBytes + headerBytes, 128)
};

struct ScopeName {
  std::string name;
  bool isEvent = false;  // its records carry the async flag
};

struct InstrumentedKernel {
  std::string name;
  unsigned profileArgIndex = 0;  // the trailing !llvm.ptr<1> argument
  bool finalizeBarrier = false;  // a CTA barrier before thread 0 writes the end times
};

/// Sets `proton.scope_names` and `proton.profile` on the module.
void attachProfileAttributes(ModuleOp module, const ProfileLayout &layout,
                             const std::vector<ScopeName> &scopes,
                             const std::vector<InstrumentedKernel> &kernels);

/// Writes the metadata JSON (schema version 1) to `path`; emits an error at the module if it
/// cannot.
LogicalResult writeProfileMetadata(ModuleOp module, llvm::StringRef path,
                                   const ProfileLayout &layout,
                                   const std::vector<ScopeName> &scopes,
                                   const std::vector<InstrumentedKernel> &kernels);

}  // namespace mlir::protoninstrument

#endif  // PROTONINSTRUMENT_LIB_CONVERSION_PROTONTOPROTONGPU_PROFILELAYOUT_H
