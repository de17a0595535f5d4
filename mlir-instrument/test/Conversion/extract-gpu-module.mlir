// --proton-extract-gpu-module keeps the device code only, with the NVPTX triple and data layout,
// and refuses a module without exactly one gpu.module.
// RUN: proton-opt %s -split-input-file -verify-diagnostics --proton-extract-gpu-module | FileCheck %s

// CHECK: module attributes {llvm.data_layout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64", llvm.target_triple = "nvptx64-nvidia-cuda", proton.scope_names = ["a"]} {
// CHECK-NEXT: llvm.func @k(%{{.*}}: !llvm.ptr<1>) attributes {nvvm.kernel}
// CHECK-NOT: gpu.module
// CHECK-NOT: func.func @host
module attributes {gpu.container_module, proton.scope_names = ["a"]} {
  gpu.module @kernels {
    llvm.func @k(%profile: !llvm.ptr<1>) attributes {nvvm.kernel} {
      llvm.return
    }
  }
  func.func @host() {
    return
  }
}

// -----

// expected-error @+1 {{expected exactly one gpu.module to extract, found 0}}
module {
}
