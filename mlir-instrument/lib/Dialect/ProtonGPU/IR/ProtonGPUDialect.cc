// The `proton_gpu` dialect's registration and verifiers.
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPU.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::protongpu;

#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPUDialect.cc.inc"

#define GET_TYPEDEF_CLASSES
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPUTypes.cc.inc"

#define GET_OP_CLASSES
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPUOps.cc.inc"

void ProtonGPUDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPUTypes.cc.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPUOps.cc.inc"
      >();
}

// `<` bytes (`,` `shared`)? `>`
Type SegmentType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  unsigned bytes = 0;
  bool shared = false;
  if (parser.parseLess() || parser.parseInteger(bytes)) return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("shared")) return {};
    shared = true;
  }
  if (parser.parseGreater()) return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), bytes, shared);
}

void SegmentType::print(AsmPrinter &printer) const {
  printer << "<" << getBytes();
  if (getShared()) printer << ", shared";
  printer << ">";
}

// The ring position is index & (words - 1): a power of two that holds at least one record.
LogicalResult SegmentType::verify(function_ref<InFlightDiagnostic()> emitError, unsigned bytes,
                                  bool) {
  if (bytes < buffer::kRecordBytes || !llvm::isPowerOf2_32(bytes)) {
    return emitError() << "a segment holds a power-of-two number of bytes, at least "
                       << buffer::kRecordBytes << " (one record), not " << bytes;
  }
  return success();
}

LogicalResult SegmentAllocOp::verify() {
  if (getNumWarps() % getWarpStride() != 0) {
    return emitOpError() << "warp_stride " << getWarpStride() << " does not divide num_warps "
                         << getNumWarps();
  }
  return success();
}

LogicalResult FinalizeOp::verify() {
  if (getSegment().getType().getShared() && !getSegment().getDefiningOp<SegmentAllocOp>())
    return emitOpError("needs a shared segment defined by proton_gpu.segment_alloc");
  return success();
}
