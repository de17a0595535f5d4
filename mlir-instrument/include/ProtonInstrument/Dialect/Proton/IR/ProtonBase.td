// The `proton` dialect, its event type and the start/end enum. Shared with `proton_gpu`, whose
// circular_store carries the same start/end keyword.
#ifndef PROTON_BASE_TD
#define PROTON_BASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Proton_Dialect : Dialect {
  let name = "proton";
  let cppNamespace = "::mlir::proton";
  let summary = "Named scopes recorded inside GPU kernels";
  let description = [{
    Marks regions of a GPU kernel whose cycles are measured per warp: `proton.record start "x"`
    and `proton.record end "x"` around synchronous code, `proton.allocate_event` and
    `proton.event start|end` for asynchronous pairs that may overlap other scopes.
    `--convert-proton-to-protongpu` turns them into `proton_gpu` ops.
  }];
  let useDefaultTypePrinterParser = 1;
}

def Proton_RecordKind : I32EnumAttr<"RecordKind", "start or end of a scope", [
    I32EnumAttrCase<"start", 0>,
    I32EnumAttrCase<"end", 1>]> {
  let cppNamespace = "::mlir::proton";
}

def Proton_EventType : TypeDef<Proton_Dialect, "Event"> {
  let mnemonic = "event";
  let summary = "an asynchronous scope, named by its proton.allocate_event";
}

#endif // PROTON_BASE_TD
