// The `proton` dialect's registration and per-op verifiers. The function-wide checks (balance,
// nesting, names) are in RecordScopes.cc.
#include "ProtonInstrument/Dialect/Proton/IR/Proton.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::proton;

#include "ProtonInstrument/Dialect/Proton/IR/ProtonDialect.cc.inc"
#include "ProtonInstrument/Dialect/Proton/IR/ProtonEnums.cc.inc"

#define GET_TYPEDEF_CLASSES
#include "ProtonInstrument/Dialect/Proton/IR/ProtonTypes.cc.inc"

#define GET_OP_CLASSES
#include "ProtonInstrument/Dialect/Proton/IR/ProtonOps.cc.inc"

void ProtonDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ProtonInstrument/Dialect/Proton/IR/ProtonTypes.cc.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ProtonInstrument/Dialect/Proton/IR/ProtonOps.cc.inc"
      >();
}

namespace {

bool isInstrumentation(Operation *op) { return isa<RecordOp, AllocateEventOp, EventOp>(op); }

// The function-wide check runs once per function: from the verifier of its first record or event
// (in program order), so that each error is reported once.
LogicalResult verifyFunctionOnce(Operation *op) {
  Operation *function = op->getParentOfType<FunctionOpInterface>();
  if (!function) return op->emitOpError("must be inside a function (a kernel)");
  Operation *first = nullptr;
  function->walk<WalkOrder::PreOrder>([&](Operation *candidate) {
    if (!isInstrumentation(candidate)) return WalkResult::advance();
    first = candidate;
    return WalkResult::interrupt();
  });
  if (first != op) return success();
  return verifyRecordScopes(function);
}

LogicalResult verifyName(Operation *op, StringRef name) {
  if (name.empty()) return op->emitOpError("needs a non-empty scope name");
  return success();
}

}  // namespace

LogicalResult RecordOp::verify() {
  if (failed(verifyName(*this, getName()))) return failure();
  return verifyFunctionOnce(*this);
}

LogicalResult AllocateEventOp::verify() {
  if (failed(verifyName(*this, getName()))) return failure();
  return verifyFunctionOnce(*this);
}

StringRef EventOp::getName() {
  auto allocate = getEvent().getDefiningOp<AllocateEventOp>();
  return allocate ? allocate.getName() : StringRef();
}

LogicalResult EventOp::verify() {
  if (!getEvent().getDefiningOp<AllocateEventOp>())
    return emitOpError("needs an event defined by proton.allocate_event in the same function");
  return verifyFunctionOnce(*this);
}
