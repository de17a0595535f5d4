// --convert-protongpu-to-llvm, op by op: the layout arithmetic of PROTON_COMPAT.md's circular
// buffer (header words, write indices, rings of 8-byte records) and the lane guards.
// RUN: proton-opt %s --convert-protongpu-to-llvm | FileCheck %s

// Block base = buffer + linear block id * block_bytes.
// CHECK-LABEL: llvm.func @scratch(
// CHECK-SAME: %[[BUF:.*]]: !llvm.ptr<1>)
// CHECK-DAG: %[[BX:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-DAG: %[[BY:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-DAG: %[[BZ:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-DAG: %[[GX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-DAG: %[[GY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK: %[[GYZ:.*]] = llvm.mul %[[GY]], %[[BZ]] : i32
// CHECK: %[[YZ:.*]] = llvm.add %[[BY]], %[[GYZ]] : i32
// CHECK: %[[GXYZ:.*]] = llvm.mul %[[GX]], %[[YZ]] : i32
// CHECK: %[[LBID:.*]] = llvm.add %[[BX]], %[[GXYZ]] : i32
// CHECK: %[[LBID64:.*]] = llvm.zext %[[LBID]] : i32 to i64
// CHECK: %[[SIZE:.*]] = llvm.mlir.constant(8320 : i64) : i64
// CHECK: %[[OFF:.*]] = llvm.mul %[[LBID64]], %[[SIZE]] : i64
// CHECK: llvm.getelementptr %[[BUF]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
llvm.func @scratch(%buffer: !llvm.ptr<1>) -> !llvm.ptr<1> {
  %blk = proton_gpu.global_scratch_alloc %buffer {block_bytes = 8320 : i32} : !llvm.ptr<1>
  llvm.return %blk : !llvm.ptr<1>
}

// Thread 0 writes header words 0-5.
// CHECK-LABEL: llvm.func @initialize(
// CHECK-SAME: %[[BLK:.*]]: !llvm.ptr<1>)
// CHECK: %[[T0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: scf.if %[[T0]] {
// CHECK: %[[MAGIC:.*]] = llvm.mlir.constant(-559038737 : i32) : i32
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[BLK]][%[[C0]]]
// CHECK: llvm.store %[[MAGIC]], %[[P0]] : i32, !llvm.ptr<1>
// CHECK: llvm.mlir.constant(4 : i64)
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<1>
// CHECK: %[[SM:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.smid"() : () -> i32
// CHECK: llvm.mlir.constant(8 : i64)
// CHECK: llvm.store %[[SM]]
// CHECK: %[[CAP:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK: llvm.mlir.constant(12 : i64)
// CHECK: llvm.store %[[CAP]]
// CHECK: %[[NOW:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.globaltimer"() : () -> i64
// CHECK: llvm.mlir.constant(16 : i64)
// CHECK: llvm.store %[[NOW]], %{{.*}} : i64, !llvm.ptr<1>
// CHECK: }
llvm.func @initialize(%blk: !llvm.ptr<1>) {
  proton_gpu.initialize %blk {data_bytes = 8192 : i32} : !llvm.ptr<1>
  llvm.return
}

// Warp-group granularity over 8 warps: lane 0 of warps 0 and 4 get rings 0 and 1, after a header
// of 40 + 4 * 8 = 72 bytes; every other thread gets null.
// CHECK-LABEL: llvm.func @segment(
// CHECK-SAME: %[[BLK:.*]]: !llvm.ptr<1>)
// CHECK: %[[W32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[WARP:.*]] = llvm.udiv %[[TID:.*]], %[[W32]]
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]], %{{.*}}
// CHECK: %[[NW:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: %[[INRANGE:.*]] = llvm.icmp "ult" %[[WARP]], %[[NW]] : i32
// CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[MOD:.*]] = llvm.urem %[[WARP]], %[[STRIDE]]
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[MOD]]
// CHECK: %[[PROFILED:.*]] = llvm.and %[[FIRST]], %[[INRANGE]]
// CHECK: %[[LANE0:.*]] = llvm.icmp "eq" %[[LANE]]
// CHECK: %[[WRITES:.*]] = llvm.and %[[LANE0]], %[[PROFILED]]
// CHECK: %[[RING:.*]] = llvm.udiv %[[WARP]], %{{.*}}
// CHECK: %[[RBYTES:.*]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK: %[[ROFF:.*]] = llvm.mul %[[RING]], %[[RBYTES]]
// CHECK: %[[HDR:.*]] = llvm.mlir.constant(72 : i32) : i32
// CHECK: %[[OFF:.*]] = llvm.add %[[HDR]], %[[ROFF]]
// CHECK: %[[SEG:.*]] = llvm.getelementptr %[[BLK]][%[[OFF]]]
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr<1>
// CHECK: llvm.select %[[WRITES]], %[[SEG]], %[[NULL]] : i1, !llvm.ptr<1>
llvm.func @segment(%blk: !llvm.ptr<1>) {
  %seg = proton_gpu.segment_alloc %blk {num_warps = 8 : i32, warp_stride = 4 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
  llvm.return
}

// A private index starting at 0; each clock read is its own intrinsic call (never merged).
// CHECK-LABEL: llvm.func @index_and_counter(
// CHECK: %[[IDX:.*]] = llvm.alloca %{{.*}} x i32 : (i32) -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[IDX]] : i32, !llvm.ptr
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clock64"() : () -> i64
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clock64"() : () -> i64
llvm.func @index_and_counter() -> i64 {
  %idx = proton_gpu.init_buffer_index : !llvm.ptr
  %c0 = proton_gpu.read_counter : i64
  %c1 = proton_gpu.read_counter : i64
  %d = llvm.sub %c1, %c0 : i64
  llvm.return %d : i64
}

// An async end record of scope 5 in a 2048-byte ring (512 words):
// word0 = 1 << 31 | 5 << 23 | 1 << 22 | clock[42:32] = 0x82C00000 | ..., word1 = clock[31:0].
// Every thread computes it and advances its index; no branch, the store is predicated on the
// segment (non-null: lane 0 of a profiled warp). Its segment_alloc is out of sight, so the
// address is not known to be 8-aligned: two 4-byte stores.
// CHECK-LABEL: llvm.func @store(
// CHECK-SAME: %[[SEG:.*]]: !llvm.ptr<1>, %[[IDX:.*]]: !llvm.ptr, %[[CLOCK:.*]]: i64)
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr<1>
// CHECK: %[[WRITES:.*]] = llvm.icmp "ne" %[[SEG]], %[[NULL]] : !llvm.ptr<1>
// CHECK-NOT: scf.if
// CHECK: %[[I:.*]] = llvm.load %[[IDX]] : !llvm.ptr -> i32
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(511 : i32) : i32
// CHECK: %[[SLOT:.*]] = llvm.and %[[I]], %[[MASK]]
// CHECK: %[[HI:.*]] = llvm.lshr %[[CLOCK]], %{{.*}} : i64
// CHECK: %[[HI32:.*]] = llvm.trunc %[[HI]] : i64 to i32
// CHECK: %[[TAG:.*]] = llvm.mlir.constant(-2101346304 : i32) : i32
// CHECK: %[[BITS:.*]] = llvm.mlir.constant(2047 : i32) : i32
// CHECK: %[[HI11:.*]] = llvm.and %[[HI32]], %[[BITS]]
// CHECK: %[[W0:.*]] = llvm.or %[[HI11]], %[[TAG]]
// CHECK: %[[W1:.*]] = llvm.trunc %[[CLOCK]] : i64 to i32
// CHECK: %[[P:.*]] = llvm.getelementptr %[[SEG]][%[[SLOT]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;\0A\09@$0 st.global.b32 [$1+4], $3;", "b,l,r,r" %[[WRITES]], %[[P]], %[[W0]], %[[W1]] : (i1, !llvm.ptr<1>, i32, i32) -> ()
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[NEXT:.*]] = llvm.add %[[I]], %[[TWO]] : i32
// CHECK: llvm.store %[[NEXT]], %[[IDX]] : i32, !llvm.ptr
// CHECK-NOT: scf.if
// CHECK: llvm.return
llvm.func @store(%segp: !llvm.ptr<1>, %idx: !llvm.ptr, %clock: i64) {
  %seg = builtin.unrealized_conversion_cast %segp : !llvm.ptr<1> to !proton_gpu.segment<2048>
  proton_gpu.circular_store end %seg, %idx, %clock {async, scope_id = 5 : i32} : !proton_gpu.segment<2048>, !llvm.ptr
  llvm.return
}

// With 4 warps the rings start at 40 + 4 * 4 = 56 bytes, a multiple of 8 (as is the block):
// a start record of scope 1 (word0 = 1 << 23 | clock[42:32]) is one 8-byte store.
// CHECK-LABEL: llvm.func @store_even_warps(
// CHECK: %[[SEG:.*]] = llvm.select %{{.*}} : i1, !llvm.ptr<1>
// CHECK: %[[WRITES:.*]] = llvm.icmp "ne" %[[SEG]], %{{.*}} : !llvm.ptr<1>
// CHECK: llvm.mlir.constant(8388608 : i32) : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %[[SEG]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.v2.b32 [$1], {$2, $3};", "b,l,r,r" %[[WRITES]], %[[P]], %{{.*}}, %{{.*}} : (i1, !llvm.ptr<1>, i32, i32) -> ()
// CHECK-NOT: scf.if
// CHECK: llvm.return
llvm.func @store_even_warps(%blk: !llvm.ptr<1>, %idx: !llvm.ptr, %clock: i64) {
  %seg = proton_gpu.segment_alloc %blk {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
  proton_gpu.circular_store start %seg, %idx, %clock {scope_id = 1 : i32} : !proton_gpu.segment<2048>, !llvm.ptr
  llvm.return
}

// With 3 warps the rings start at 40 + 4 * 3 = 52 bytes: records are only 4-byte aligned, so
// two predicated 4-byte stores in one asm block.
// CHECK-LABEL: llvm.func @store_odd_warps(
// CHECK: llvm.mlir.constant(52 : i32) : i32
// CHECK: %[[SEG:.*]] = llvm.select %{{.*}} : i1, !llvm.ptr<1>
// CHECK: %[[WRITES:.*]] = llvm.icmp "ne" %[[SEG]], %{{.*}} : !llvm.ptr<1>
// CHECK: %[[P:.*]] = llvm.getelementptr %[[SEG]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;\0A\09@$0 st.global.b32 [$1+4], $3;", "b,l,r,r" %[[WRITES]], %[[P]], %{{.*}}, %{{.*}} : (i1, !llvm.ptr<1>, i32, i32) -> ()
// CHECK-NOT: st.global.v2
// CHECK: llvm.return
llvm.func @store_odd_warps(%blk: !llvm.ptr<1>, %idx: !llvm.ptr, %clock: i64) {
  %seg = proton_gpu.segment_alloc %blk {num_warps = 3 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
  proton_gpu.circular_store start %seg, %idx, %clock {scope_id = 1 : i32} : !proton_gpu.segment<2048>, !llvm.ptr
  llvm.return
}

// Writers store their index at block + 40 + 4 * warp; the barrier; thread 0 stamps words 6-9.
// CHECK-LABEL: llvm.func @finalize(
// CHECK-SAME: %[[BLK:.*]]: !llvm.ptr<1>, %[[SEG:.*]]: !llvm.ptr<1>, %[[IDX:.*]]: !llvm.ptr)
// CHECK: llvm.icmp "ne" %[[SEG]]
// CHECK: scf.if
// CHECK: %[[I:.*]] = llvm.load %[[IDX]] : !llvm.ptr -> i32
// CHECK: %[[WARP:.*]] = llvm.udiv
// CHECK: %[[H:.*]] = llvm.mlir.constant(40 : i32) : i32
// CHECK: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[W4:.*]] = llvm.mul %[[WARP]], %[[FOUR]] : i32
// CHECK: %[[OFF:.*]] = llvm.add %[[H]], %[[W4]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %[[BLK]][%[[OFF]]]
// CHECK: llvm.store %[[I]], %[[P]] : i32, !llvm.ptr<1>
// CHECK: }
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.globaltimer"
// CHECK: llvm.mlir.constant(24 : i64)
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.globaltimer"
// CHECK: llvm.mlir.constant(32 : i64)
// CHECK: }
// CHECK-NEXT: llvm.return
llvm.func @finalize(%blk: !llvm.ptr<1>, %segp: !llvm.ptr<1>, %idx: !llvm.ptr) {
  %seg = builtin.unrealized_conversion_cast %segp : !llvm.ptr<1> to !proton_gpu.segment<2048>
  proton_gpu.finalize %blk, %seg, %idx {barrier} : !llvm.ptr<1>, !proton_gpu.segment<2048>, !llvm.ptr
  llvm.return
}

// Without the barrier attribute (a kernel that may exit early), no barrier.
// CHECK-LABEL: llvm.func @finalize_divergent(
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
llvm.func @finalize_divergent(%blk: !llvm.ptr<1>, %segp: !llvm.ptr<1>, %idx: !llvm.ptr) {
  %seg = builtin.unrealized_conversion_cast %segp : !llvm.ptr<1> to !proton_gpu.segment<2048>
  proton_gpu.finalize %blk, %seg, %idx : !llvm.ptr<1>, !proton_gpu.segment<2048>, !llvm.ptr
  llvm.return
}
