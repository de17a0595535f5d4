// --convert-proton-to-protongpu: the profile buffer argument, the buffer ops at entry, one
// read_counter + circular_store per record, a finalize before the return, and the layout on the
// module (and in the JSON file).
// RUN: proton-opt %s --convert-proton-to-protongpu="num-warps=4 buffer-size=8192 metadata-file=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: proton-opt %s --convert-proton-to-protongpu="granularity=warp-group num-warps=8 buffer-size=4096" | FileCheck %s --check-prefix=GROUP
// RUN: proton-opt %s --convert-proton-to-protongpu="granularity=cta buffer-size=1024" | FileCheck %s --check-prefix=CTA
// RUN: proton-opt %s --convert-proton-to-protongpu="buffer-type=shared" | FileCheck %s --check-prefix=SHARED

// CHECK: module attributes {gpu.container_module, proton.profile = {block_bytes = 8320 : i32, buffer_strategy = "circular", buffer_type = "global", data_bytes = 8192 : i32, granularity = "warp", header_bytes = 56 : i32, kernels = [{finalize_barrier = true, name = "k", profile_arg_index = 1 : i32}], num_warps = 4 : i32, segment_bytes = 2048 : i32, warp_stride = 1 : i32}, proton.scope_names = ["loop", "body", "copy"]}
// GROUP: proton.profile = {block_bytes = 4224 : i32, {{.*}} header_bytes = 72 : i32, {{.*}} num_warps = 8 : i32, segment_bytes = 2048 : i32, warp_stride = 4 : i32}
// GROUP: proton_gpu.segment_alloc %{{.*}} {num_warps = 8 : i32, warp_stride = 4 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
// SHARED: buffer_type = "shared"
// SHARED: proton_gpu.segment_alloc %{{.*}} : !llvm.ptr<1> -> !proton_gpu.segment<2048, shared>
// SHARED: proton_gpu.circular_store start %{{.*}} : !proton_gpu.segment<2048, shared>, !llvm.ptr
// SHARED: proton_gpu.finalize %{{.*}} {barrier} : !llvm.ptr<1>, !proton_gpu.segment<2048, shared>, !llvm.ptr
// CTA: proton.profile = {block_bytes = 1152 : i32, {{.*}} granularity = "cta", {{.*}} segment_bytes = 1024 : i32, warp_stride = 4 : i32}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: gpu.func @k(
    // CHECK-SAME: %[[N:.*]]: index, %[[PROFILE:.*]]: !llvm.ptr<1> {proton.profile_buffer}) kernel
    gpu.func @k(%n: index) kernel {
      // CHECK: %[[BLK:.*]] = proton_gpu.global_scratch_alloc %[[PROFILE]] {block_bytes = 8320 : i32} : !llvm.ptr<1>
      // CHECK: proton_gpu.initialize %[[BLK]] {data_bytes = 8192 : i32} : !llvm.ptr<1>
      // CHECK: %[[SEG:.*]] = proton_gpu.segment_alloc %[[BLK]] {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<2048>
      // CHECK: %[[IDX:.*]] = proton_gpu.init_buffer_index : !llvm.ptr
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // CHECK: %[[T0:.*]] = proton_gpu.read_counter : i64
      // CHECK: proton_gpu.circular_store start %[[SEG]], %[[IDX]], %[[T0]] {scope_id = 0 : i32}
      proton.record start "loop"
      // CHECK: scf.for
      scf.for %i = %c0 to %n step %c1 {
        // CHECK: proton_gpu.circular_store start %[[SEG]], %[[IDX]], %{{.*}} {scope_id = 1 : i32}
        proton.record start "body"
        // CHECK: proton_gpu.circular_store end %[[SEG]], %[[IDX]], %{{.*}} {scope_id = 1 : i32}
        proton.record end "body"
      }
      // CHECK: proton_gpu.circular_store end %[[SEG]], %[[IDX]], %{{.*}} {scope_id = 0 : i32}
      proton.record end "loop"
      // CHECK-NOT: proton.allocate_event
      %ev = proton.allocate_event "copy"
      // CHECK: proton_gpu.circular_store start %[[SEG]], %[[IDX]], %{{.*}} {async, scope_id = 2 : i32}
      proton.event start %ev
      // CHECK: proton_gpu.circular_store end %[[SEG]], %[[IDX]], %{{.*}} {async, scope_id = 2 : i32}
      proton.event end %ev
      // CHECK: proton_gpu.finalize %[[BLK]], %[[SEG]], %[[IDX]] {barrier}
      // CHECK-NEXT: gpu.return
      gpu.return
    }

    // A kernel without records is left alone.
    // CHECK-LABEL: gpu.func @plain(
    // CHECK-SAME: %{{.*}}: index) kernel
    // CHECK-NOT: proton_gpu
    // CHECK: gpu.return
    gpu.func @plain(%n: index) kernel {
      gpu.return
    }
  }
}

// llvm::json writes keys in alphabetical order.
// JSON: "block_align_bytes": 128,
// JSON-NEXT: "block_bytes": 8320,
// JSON-NEXT: "buffer_strategy": "circular",
// JSON-NEXT: "buffer_type": "global",
// JSON-NEXT: "clock": "clock64",
// JSON-NEXT: "data_bytes": 8192,
// JSON-NEXT: "granularity": "warp",
// JSON-NEXT: "header_bytes": 56,
// JSON-NEXT: "kernel_name": "k",
// JSON-NEXT: "kernels": [
// JSON-NEXT: {
// JSON-NEXT: "finalize_barrier": true,
// JSON-NEXT: "name": "k",
// JSON-NEXT: "profile_arg_index": 1
// JSON-NEXT: }
// JSON-NEXT: ],
// JSON-NEXT: "num_warps": 4,
// JSON-NEXT: "preamble": 3735928559,
// JSON-NEXT: "profiled_warps": [
// JSON-NEXT: 0,
// JSON-NEXT: 1,
// JSON-NEXT: 2,
// JSON-NEXT: 3
// JSON-NEXT: ],
// JSON-NEXT: "record_bytes": 8,
// JSON-NEXT: "scope_names": [
// JSON-NEXT: "loop",
// JSON-NEXT: "body",
// JSON-NEXT: "copy"
// JSON-NEXT: ],
// JSON-NEXT: "scopes": [
// JSON-NEXT: {
// JSON-NEXT: "async": false,
// JSON-NEXT: "id": 0,
// JSON-NEXT: "name": "loop"
// JSON-NEXT: },
// JSON: "async": true,
// JSON-NEXT: "id": 2,
// JSON-NEXT: "name": "copy"
// JSON: "segment_bytes": 2048,
// JSON-NEXT: "timer": "globaltimer_ns",
// JSON-NEXT: "version": 1
