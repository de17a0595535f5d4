// buffer-type=shared: the rings live in one shared array (@__proton_shared_records, all the
// rings of a CTA) and finalize copies them to the block's data, after the header.
// RUN: proton-opt %s --convert-protongpu-to-llvm | FileCheck %s

// CHECK: llvm.mlir.global internal @__proton_shared_records() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8192 x i8>

gpu.module @kernels {
  // With the barrier, every thread of the CTA copies: words tid, tid + blockDim, ... of 2048.
  // CHECK-LABEL: llvm.func @uniform_exit(
  // CHECK-SAME: %[[BLK:.*]]: !llvm.ptr<1>, %[[IDX:.*]]: !llvm.ptr)
  llvm.func @uniform_exit(%blk: !llvm.ptr<1>, %idx: !llvm.ptr) {
    // CHECK: %[[RINGS:.*]] = llvm.mlir.addressof @__proton_shared_records : !llvm.ptr<3>
    // CHECK: %[[SEG:.*]] = llvm.getelementptr %[[RINGS]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    // CHECK: llvm.select %{{.*}}, %[[SEG]], %{{.*}} : i1, !llvm.ptr<3>
    %seg = proton_gpu.segment_alloc %blk {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048, shared>
    %c = proton_gpu.read_counter : i64
    // The shared array is 8-aligned and so is every record in it: one predicated 8-byte store.
    // CHECK-NOT: scf.if
    // CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // CHECK: llvm.inline_asm has_side_effects "@$0 st.shared.v2.b32 [$1], {$2, $3};", "b,l,r,r" %{{.*}}, %[[P]], %{{.*}}, %{{.*}} : (i1, !llvm.ptr<3>, i32, i32) -> ()
    proton_gpu.circular_store start %seg, %idx, %c {scope_id = 0 : i32} : !proton_gpu.segment<2048, shared>, !llvm.ptr
    // CHECK: nvvm.barrier0
    // CHECK: scf.if
    // CHECK: llvm.mlir.constant(24 : i64)
    // CHECK: }
    // CHECK: %[[FROM:.*]] = llvm.mlir.addressof @__proton_shared_records : !llvm.ptr<3>
    // CHECK: %[[HDR:.*]] = llvm.mlir.constant(56 : i64) : i64
    // CHECK: %[[TO:.*]] = llvm.getelementptr %[[BLK]][%[[HDR]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    // CHECK: %[[XY:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
    // CHECK-NEXT: %[[THREADS:.*]] = llvm.mul %[[XY]], %{{.*}} : i32
    // CHECK: %[[WORDS:.*]] = llvm.mlir.constant(2048 : i32) : i32
    // CHECK: scf.for %[[I:.*]] = %[[TID:.*]] to %[[WORDS]] step %[[THREADS]] : i32 {
    // CHECK: %[[S:.*]] = llvm.getelementptr %[[FROM]][%[[I]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // CHECK: %[[W:.*]] = llvm.load %[[S]] : !llvm.ptr<3> -> i32
    // CHECK: %[[D:.*]] = llvm.getelementptr %[[TO]][%[[I]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    // CHECK: llvm.store %[[W]], %[[D]] : i32, !llvm.ptr<1>
    // CHECK: }
    // CHECK: nvvm.barrier0
    // CHECK: scf.if
    // CHECK: llvm.mlir.constant(32 : i64)
    proton_gpu.finalize %blk, %seg, %idx {barrier} : !llvm.ptr<1>, !proton_gpu.segment<2048, shared>, !llvm.ptr
    llvm.return
  }

  // Without the barrier, each writing lane copies its own ring, min(index, 512) words, to the
  // same offset after the header.
  // CHECK-LABEL: llvm.func @divergent_exit(
  // CHECK-SAME: %[[BLK:.*]]: !llvm.ptr<1>, %[[IDX:.*]]: !llvm.ptr)
  // CHECK: %[[SEG:.*]] = llvm.select %{{.*}} : i1, !llvm.ptr<3>
  // CHECK: scf.if
  // CHECK: %[[I:.*]] = llvm.load %[[IDX]] : !llvm.ptr -> i32
  // CHECK: %[[RINGS:.*]] = llvm.mlir.addressof @__proton_shared_records : !llvm.ptr<3>
  // CHECK: %[[SA:.*]] = llvm.ptrtoint %[[SEG]] : !llvm.ptr<3> to i64
  // CHECK: %[[RA:.*]] = llvm.ptrtoint %[[RINGS]] : !llvm.ptr<3> to i64
  // CHECK: %[[ROFF:.*]] = llvm.sub %[[SA]], %[[RA]] : i64
  // CHECK: %[[HDR:.*]] = llvm.mlir.constant(56 : i64) : i64
  // CHECK: %[[OFF:.*]] = llvm.add %[[HDR]], %[[ROFF]] : i64
  // CHECK: %[[RW:.*]] = llvm.mlir.constant(512 : i32) : i32
  // CHECK: %[[FULL:.*]] = llvm.icmp "uge" %[[I]], %[[RW]] : i32
  // CHECK: %[[N:.*]] = llvm.select %[[FULL]], %[[RW]], %[[I]] : i1, i32
  // CHECK: %[[TO:.*]] = llvm.getelementptr %[[BLK]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
  // CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} : i32 {
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @divergent_exit(%blk: !llvm.ptr<1>, %idx: !llvm.ptr) {
    %seg = proton_gpu.segment_alloc %blk {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048, shared>
    proton_gpu.finalize %blk, %seg, %idx : !llvm.ptr<1>, !proton_gpu.segment<2048, shared>, !llvm.ptr
    llvm.return
  }
}
