#ifndef PROTONGPU_OPS_TD
#define PROTONGPU_OPS_TD

include "ProtonInstrument/Dialect/Proton/IR/ProtonBase.td"
include "mlir/Dialect/LLVMIR/LLVMTypes.td"
include "mlir/IR/CommonAttrConstraints.td"

def ProtonGPU_Dialect : Dialect {
  let name = "proton_gpu";
  let cppNamespace = "::mlir::protongpu";
  let summary = "The per-CTA profile buffer of an instrumented kernel";
  let description = [{
    The buffer operations that `proton` records become: one block of the profile buffer per CTA
    (a header, one write index per warp, then one ring of 8-byte records per profiled warp),
    filled by lane 0 of each profiled warp and finalized at kernel exit. The layout is Proton's
    circular layout; docs/mlir-instrument.md has the diagram. `--convert-protongpu-to-llvm`
    lowers these ops to the LLVM and NVVM dialects.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
  let useDefaultTypePrinterParser = 1;
}

def ProtonGPU_SegmentType : TypeDef<ProtonGPU_Dialect, "Segment"> {
  let mnemonic = "segment";
  let summary = "one warp's ring of records in the profile buffer";
  let description = [{
    `!proton_gpu.segment<2048>`: a ring of 2048 bytes (256 records of 8 bytes) in this CTA's
    block of the profile buffer (global memory). `!proton_gpu.segment<2048, shared>`: the ring is
    in shared memory, and finalize copies it to the block. Null on threads that do not write
    (every lane but 0, and warps that are not profiled).
  }];
  let parameters = (ins "unsigned":$bytes, DefaultValuedParameter<"bool", "false">:$shared);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def GlobalPtr : LLVM_PointerInAddressSpace<1>;

class ProtonGPU_Op<string mnemonic, list<Trait> traits = []> :
    Op<ProtonGPU_Dialect, mnemonic, traits>;

def ProtonGPU_GlobalScratchAllocOp : ProtonGPU_Op<"global_scratch_alloc",
    [Pure, AllTypesMatch<["buffer", "block"]>]> {
  let summary = "this CTA's block of the profile buffer";
  let description = [{
    `buffer` + linear_block_id * block_bytes, where linear_block_id = ctaid.x + nctaid.x *
    (ctaid.y + nctaid.y * ctaid.z). `buffer` is the kernel's trailing profile argument.
  }];
  let arguments = (ins GlobalPtr:$buffer, ConfinedAttr<I32Attr, [IntPositive]>:$block_bytes);
  let results = (outs GlobalPtr:$block);
  let assemblyFormat = "$buffer attr-dict `:` qualified(type($buffer))";
}

def ProtonGPU_InitializeOp : ProtonGPU_Op<"initialize"> {
  let summary = "writes the block header at kernel entry";
  let description = [{
    Thread 0 of the CTA writes header words 0-5: 0xDEADBEEF, the linear block id, the SM id,
    `data_bytes` (the capacity) and the global timer (ns).
  }];
  let arguments = (ins GlobalPtr:$block, ConfinedAttr<I32Attr, [IntPositive]>:$data_bytes);
  let assemblyFormat = "$block attr-dict `:` qualified(type($block))";
}

def ProtonGPU_SegmentAllocOp : ProtonGPU_Op<"segment_alloc", [Pure]> {
  let summary = "this warp's ring in the block, or null if it does not write";
  let description = [{
    Lane 0 of warp w writes when w < num_warps and w % warp_stride == 0 (warp_stride is 1 for
    warp granularity, 4 for warp groups, num_warps for the CTA). Its ring starts at
    block + 40 + 4 * num_warps + (w / warp_stride) * segment bytes (for a shared segment, at
    (w / warp_stride) * segment bytes in the CTA's shared array of rings). The warp is
    linear_thread_id / 32 with linear_thread_id = tid.x + ntid.x * (tid.y + ntid.y * tid.z).
  }];
  let arguments = (ins GlobalPtr:$block, ConfinedAttr<I32Attr, [IntPositive]>:$num_warps,
                   ConfinedAttr<I32Attr, [IntPositive]>:$warp_stride);
  let results = (outs ProtonGPU_SegmentType:$segment);
  let assemblyFormat = "$block attr-dict `:` qualified(type($block)) `->` qualified(type($segment))";
  let hasVerifier = 1;
}

def ProtonGPU_InitBufferIndexOp : ProtonGPU_Op<"init_buffer_index"> {
  let summary = "a thread-private write index, starting at 0";
  let description = [{
    A private i32 counting the words this warp has written (2 per record). It only grows: the
    ring position is index modulo the segment's words.
  }];
  let results = (outs LLVM_AnyPointer:$index);
  let assemblyFormat = "attr-dict `:` qualified(type($index))";
}

def ProtonGPU_ReadCounterOp : ProtonGPU_Op<"read_counter"> {
  let summary = "the SM's cycle counter (%clock64)";
  let results = (outs I64:$counter);
  let assemblyFormat = "attr-dict `:` type($counter)";
}

def ProtonGPU_CircularStoreOp : ProtonGPU_Op<"circular_store"> {
  let summary = "appends one record to this warp's ring";
  let description = [{
    Where the segment is not null: writes the record at ring word (index mod words), then
    index += 2. word0 = end << 31 | scope_id << 23 | async << 22 | counter[42:32];
    word1 = counter[31:0].
  }];
  let arguments = (ins Proton_RecordKind:$kind, ProtonGPU_SegmentType:$segment,
                   LLVM_AnyPointer:$index, I64:$counter,
                   ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<255>]>:$scope_id,
                   UnitAttr:$async);
  let assemblyFormat = [{
    $kind $segment `,` $index `,` $counter attr-dict `:` qualified(type($segment)) `,`
    qualified(type($index))
  }];
}

def ProtonGPU_FinalizeOp : ProtonGPU_Op<"finalize"> {
  let summary = "writes the write indices and the header's end times at kernel exit";
  let description = [{
    Lane 0 of each writing warp stores its index at block + 40 + 4 * warp. Then, after a CTA
    barrier if `barrier` is set (only where every thread reaches this op), thread 0 writes the
    pre- and post-finalize times (header words 6-9). A shared segment is copied to the block in
    between: by every thread after the barrier, or by each writing lane for its own ring. Its
    segment must come straight from segment_alloc, which knows the layout.
  }];
  let arguments = (ins GlobalPtr:$block, ProtonGPU_SegmentType:$segment,
                   LLVM_AnyPointer:$index, UnitAttr:$barrier);
  let assemblyFormat = [{
    $block `,` $segment `,` $index attr-dict `:` qualified(type($block)) `,`
    qualified(type($segment)) `,` qualified(type($index))
  }];
  let hasVerifier = 1;
}

#endif // PROTONGPU_OPS_TD
