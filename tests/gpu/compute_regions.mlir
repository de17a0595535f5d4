// A compute-bound kernel for tests/gpu and bench/instrumentation_overhead.sh, with the signature
// of mlir-instrument/examples/two_regions.mlir (x, y, out, n, then the profile buffer): each
// thread loads x[tid] once, then runs 1024 dependent multiply-adds (a mul.rn and an add.rn each:
// LLVM contracts nothing without fast-math flags, so about 8 cycles a pair) in region "fma", 16
// at a time, all within "kernel", and stores the result to out[tid].
// Launch with 128 threads per CTA.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @compute_regions(%x: memref<1048576xf32>, %y: memref<1048576xf32>,
                              %out: memref<1048576xf32>, %n: index)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %a = arith.constant 1.0001 : f32
      %b = arith.constant 0.5 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %gtid = arith.addi %base, %tid : index
      %i = arith.remui %gtid, %n : index
      proton.record start "kernel"
      %v0 = memref.load %x[%i] : memref<1048576xf32>
      %v = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %v0) -> (f32) {
        proton.record start "fma"
        %m0 = arith.mulf %acc, %a : f32
        %f0 = arith.addf %m0, %b : f32
        %m1 = arith.mulf %f0, %a : f32
        %f1 = arith.addf %m1, %b : f32
        %m2 = arith.mulf %f1, %a : f32
        %f2 = arith.addf %m2, %b : f32
        %m3 = arith.mulf %f2, %a : f32
        %f3 = arith.addf %m3, %b : f32
        %m4 = arith.mulf %f3, %a : f32
        %f4 = arith.addf %m4, %b : f32
        %m5 = arith.mulf %f4, %a : f32
        %f5 = arith.addf %m5, %b : f32
        %m6 = arith.mulf %f5, %a : f32
        %f6 = arith.addf %m6, %b : f32
        %m7 = arith.mulf %f6, %a : f32
        %f7 = arith.addf %m7, %b : f32
        %m8 = arith.mulf %f7, %a : f32
        %f8 = arith.addf %m8, %b : f32
        %m9 = arith.mulf %f8, %a : f32
        %f9 = arith.addf %m9, %b : f32
        %ma = arith.mulf %f9, %a : f32
        %fa = arith.addf %ma, %b : f32
        %mb = arith.mulf %fa, %a : f32
        %fb = arith.addf %mb, %b : f32
        %mc = arith.mulf %fb, %a : f32
        %fc = arith.addf %mc, %b : f32
        %md = arith.mulf %fc, %a : f32
        %fd = arith.addf %md, %b : f32
        %me = arith.mulf %fd, %a : f32
        %fe = arith.addf %me, %b : f32
        %mf = arith.mulf %fe, %a : f32
        %ff = arith.addf %mf, %b : f32
        proton.record end "fma"
        scf.yield %ff : f32
      }
      proton.record end "kernel"
      memref.store %v, %out[%i] : memref<1048576xf32>
      gpu.return
    }
  }
}
