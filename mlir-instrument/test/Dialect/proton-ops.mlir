// Parse, print, parse again: the custom syntax of the proton dialect round-trips, and so does
// the generic form.
// RUN: proton-opt %s | proton-opt | FileCheck %s
// RUN: proton-opt %s --mlir-print-op-generic | proton-opt | FileCheck %s

// CHECK-LABEL: func.func @scopes
func.func @scopes(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: proton.record start "loop"
  proton.record start "loop"
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: proton.record start "body"
    proton.record start "body"
    // CHECK: proton.record end "body"
    proton.record end "body"
  }
  // CHECK: proton.record end "loop"
  proton.record end "loop"
  // A name may be used again once its scope is closed.
  // CHECK: proton.record start "loop"
  proton.record start "loop"
  proton.record end "loop"
  return
}

// CHECK-LABEL: func.func @events
func.func @events() {
  // CHECK: %[[EV:.*]] = proton.allocate_event "copy"
  %ev = proton.allocate_event "copy"
  // CHECK: proton.event start %[[EV]]
  proton.event start %ev
  proton.record start "compute"
  // Async events need not nest with the synchronous scopes.
  // CHECK: proton.event end %[[EV]]
  proton.event end %ev
  proton.record end "compute"
  return
}
