// A kernel that may return from two places gets a finalize before each return, without the CTA
// barrier (threads that took the other return would never arrive at it).
// RUN: proton-opt %s --convert-proton-to-protongpu | FileCheck %s

// CHECK: kernels = [{finalize_barrier = false, name = "early_exit", profile_arg_index = 1 : i32}]
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @early_exit
  gpu.func @early_exit(%done: i1) kernel {
    proton.record start "work"
    proton.record end "work"
    cf.cond_br %done, ^exit, ^more
  ^exit:
    // CHECK: proton_gpu.finalize %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
    // CHECK-NEXT: gpu.return
    gpu.return
  ^more:
    // CHECK: proton_gpu.finalize %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
    // CHECK-NEXT: gpu.return
    gpu.return
  }
}
