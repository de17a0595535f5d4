#ifndef PROTON_OPS_TD
#define PROTON_OPS_TD

include "ProtonInstrument/Dialect/Proton/IR/ProtonBase.td"

class Proton_Op<string mnemonic, list<Trait> traits = []> :
    Op<Proton_Dialect, mnemonic, traits>;

def Proton_RecordOp : Proton_Op<"record"> {
  let summary = "start or end of a named, synchronous scope";
  let description = [{
    Records the cycle counter at this point as the start or the end of scope `name`, on every
    profiled warp that executes it.

    ```mlir
    proton.record start "loop"
    ...
    proton.record end "loop"
    ```

    Within a function the records of a scope must balance and nest: every start has an end in the
    same block, a scope ends before any scope that encloses it, and a name is not reused for two
    scopes open at once. A kernel has at most 256 distinct names (records and events together):
    the record encoding has 8 bits for the scope id.
  }];
  let arguments = (ins Proton_RecordKind:$kind, StrAttr:$name);
  let assemblyFormat = "$kind $name attr-dict";
  let hasVerifier = 1;
}

def Proton_AllocateEventOp : Proton_Op<"allocate_event"> {
  let summary = "names an asynchronous scope";
  let description = [{
    An asynchronous scope is started and ended by `proton.event` ops that need not nest with the
    other scopes (for example a copy issued by one warp and waited for later). Its records carry
    the async flag.

    ```mlir
    %ev = proton.allocate_event "tma"
    proton.event start %ev
    ...
    proton.event end %ev
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Proton_EventType:$event);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
}

def Proton_EventOp : Proton_Op<"event"> {
  let summary = "start or end of an asynchronous scope";
  let arguments = (ins Proton_RecordKind:$kind, Proton_EventType:$event);
  let assemblyFormat = "$kind $event attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The name of the event, from the proton.allocate_event that defines it.
    ::llvm::StringRef getName();
  }];
}

#endif // PROTON_OPS_TD
