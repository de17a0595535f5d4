// RUN: proton-opt %s | proton-opt | FileCheck %s
// RUN: proton-opt %s --mlir-print-op-generic | proton-opt | FileCheck %s

// CHECK-LABEL: llvm.func @buffer
llvm.func @buffer(%profile: !llvm.ptr<1>) {
  // CHECK: %[[BLK:.*]] = proton_gpu.global_scratch_alloc %{{.*}} {block_bytes = 8320 : i32} : !llvm.ptr<1>
  %blk = proton_gpu.global_scratch_alloc %profile {block_bytes = 8320 : i32} : !llvm.ptr<1>
  // CHECK: proton_gpu.initialize %[[BLK]] {data_bytes = 8192 : i32} : !llvm.ptr<1>
  proton_gpu.initialize %blk {data_bytes = 8192 : i32} : !llvm.ptr<1>
  // CHECK: %[[SEG:.*]] = proton_gpu.segment_alloc %[[BLK]] {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
  %seg = proton_gpu.segment_alloc %blk {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
  // CHECK: %[[IDX:.*]] = proton_gpu.init_buffer_index : !llvm.ptr
  %idx = proton_gpu.init_buffer_index : !llvm.ptr
  // CHECK: %[[C0:.*]] = proton_gpu.read_counter : i64
  %c0 = proton_gpu.read_counter : i64
  // CHECK: proton_gpu.circular_store start %[[SEG]], %[[IDX]], %[[C0]] {scope_id = 0 : i32} : !proton_gpu.segment<2048>, !llvm.ptr
  proton_gpu.circular_store start %seg, %idx, %c0 {scope_id = 0 : i32} : !proton_gpu.segment<2048>, !llvm.ptr
  %c1 = proton_gpu.read_counter : i64
  // CHECK: proton_gpu.circular_store end %[[SEG]], %[[IDX]], %{{.*}} {async, scope_id = 255 : i32}
  proton_gpu.circular_store end %seg, %idx, %c1 {async, scope_id = 255 : i32} : !proton_gpu.segment<2048>, !llvm.ptr
  // CHECK: proton_gpu.finalize %[[BLK]], %[[SEG]], %[[IDX]] {barrier} : !llvm.ptr<1>, !proton_gpu.segment<2048>, !llvm.ptr
  proton_gpu.finalize %blk, %seg, %idx {barrier} : !llvm.ptr<1>, !proton_gpu.segment<2048>, !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @shared_buffer
llvm.func @shared_buffer(%blk: !llvm.ptr<1>, %idx: !llvm.ptr) {
  // CHECK: proton_gpu.segment_alloc %{{.*}} : !llvm.ptr<1> -> !proton_gpu.segment<64, shared>
  %seg = proton_gpu.segment_alloc %blk {num_warps = 4 : i32, warp_stride = 4 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<64, shared>
  // CHECK: proton_gpu.finalize %{{.*}} : !llvm.ptr<1>, !proton_gpu.segment<64, shared>, !llvm.ptr
  proton_gpu.finalize %blk, %seg, %idx : !llvm.ptr<1>, !proton_gpu.segment<64, shared>, !llvm.ptr
  llvm.return
}
