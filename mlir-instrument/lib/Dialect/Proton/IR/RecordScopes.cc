// The function-wide checks of proton.record / proton.event: what a single op's verifier cannot
// see. Scopes are checked in program order (a pre-order walk), as a stack of open scopes.
#include "ProtonInstrument/Dialect/Proton/IR/Proton.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::proton {
namespace {

struct OpenScope {
  StringRef name;
  Operation *start;
};

struct EventUse {
  unsigned starts = 0;
  unsigned ends = 0;
};

class ScopeChecker {
 public:
  WalkResult visit(Operation *op) {
    if (auto record = dyn_cast<RecordOp>(op)) {
      if (failed(noteName(op, record.getName(), /*isEvent=*/false))) return WalkResult::interrupt();
      return record.getKind() == RecordKind::start ? visitStart(op, record.getName())
                                                   : visitEnd(op, record.getName());
    }
    if (auto allocate = dyn_cast<AllocateEventOp>(op)) {
      if (failed(noteName(op, allocate.getName(), /*isEvent=*/true)))
        return WalkResult::interrupt();
      events[allocate.getOperation()];
      return WalkResult::advance();
    }
    if (auto event = dyn_cast<EventOp>(op)) {
      EventUse &use = events[event.getEvent().getDefiningOp()];
      (event.getKind() == RecordKind::start ? use.starts : use.ends) += 1;
    }
    return WalkResult::advance();
  }

  LogicalResult finish() {
    if (!open.empty()) {
      return open.back().start->emitError()
             << "scope '" << open.back().name << "' is started but never ended in this function";
    }
    for (auto &[allocate, use] : events) {
      if (use.starts == 0 || use.ends == 0) {
        return allocate->emitError()
               << "event '" << cast<AllocateEventOp>(allocate).getName() << "' has " << use.starts
               << " start(s) and " << use.ends << " end(s); it needs at least one of each";
      }
    }
    return success();
  }

 private:
  // Every name takes a scope id; records and events must not share one (the async flag alone
  // would tell them apart in the buffer, and a reader would merge them).
  LogicalResult noteName(Operation *op, StringRef name, bool isEvent) {
    auto it = nameIsEvent.find(name);
    if (it == nameIsEvent.end()) {
      if (nameIsEvent.size() == kMaxScopes) {
        return op->emitError() << "too many scopes: '" << name << "' would be scope number "
                               << kMaxScopes + 1 << ", but the record encoding has 8 bits for "
                               << "the scope id (at most " << kMaxScopes << " names per kernel)";
      }
      nameIsEvent[name] = isEvent;
      return success();
    }
    if (it->second != isEvent) {
      return op->emitError() << "'" << name
                             << "' names both a proton.record scope and a proton event";
    }
    return success();
  }

  WalkResult visitStart(Operation *op, StringRef name) {
    for (const OpenScope &scope : open) {
      if (scope.name != name) continue;
      InFlightDiagnostic diag = op->emitError()
                                << "scope '" << name << "' is started again while still open";
      diag.attachNote(scope.start->getLoc()) << "'" << name << "' was started here";
      return WalkResult::interrupt();
    }
    open.push_back({name, op});
    return WalkResult::advance();
  }

  WalkResult visitEnd(Operation *op, StringRef name) {
    auto it = llvm::find_if(open, [&](const OpenScope &scope) { return scope.name == name; });
    if (it == open.end()) {
      op->emitError() << "'proton.record end' of scope '" << name << "' without a matching start";
      return WalkResult::interrupt();
    }
    if (it + 1 != open.end()) {
      const OpenScope &inner = open.back();
      InFlightDiagnostic diag = op->emitError()
                                << "scope '" << name << "' ends while scope '" << inner.name
                                << "', started inside it, is still open (scopes must nest)";
      diag.attachNote(inner.start->getLoc()) << "'" << inner.name << "' was started here";
      return WalkResult::interrupt();
    }
    if (it->start->getBlock() != op->getBlock()) {
      InFlightDiagnostic diag = op->emitError()
                                << "scope '" << name << "' must end in the block where it starts";
      diag.attachNote(it->start->getLoc()) << "'" << name << "' was started here";
      return WalkResult::interrupt();
    }
    open.pop_back();
    return WalkResult::advance();
  }

  SmallVector<OpenScope> open;
  llvm::StringMap<bool> nameIsEvent;
  llvm::MapVector<Operation *, EventUse> events;
};

}  // namespace

LogicalResult verifyRecordScopes(Operation *function) {
  ScopeChecker checker;
  WalkResult result =
      function->walk<WalkOrder::PreOrder>([&](Operation *op) { return checker.visit(op); });
  if (result.wasInterrupted()) return failure();
  return checker.finish();
}

}  // namespace mlir::proton
