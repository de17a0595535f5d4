// A kernel with a loop and two named regions inside it: "load" (global loads) and "compute"
// (arithmetic), both within "loop". Each thread accumulates x[i] * a + y[i] over a strided range
// and writes its sum to out[tid]. Launch: blockDim.x = 128 (4 warps), any gridDim.x; arguments
// x, y, out (f32, n elements each, n >= gridDim.x * 128), n, then the profile buffer that
// --convert-proton-to-protongpu appends.
//
//   mlir-instrument/scripts/compile-kernel.sh mlir-instrument/examples/two_regions.mlir OUT
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @two_regions(%x: memref<1048576xf32>, %y: memref<1048576xf32>, %out: memref<1048576xf32>,
                          %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %a = arith.constant 1.5 : f32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %gdim = gpu.grid_dim x
      %base = arith.muli %bid, %bdim : index
      %gtid = arith.addi %base, %tid : index
      %stride = arith.muli %gdim, %bdim : index
      proton.record start "loop"
      %sum = scf.for %i = %gtid to %n step %stride iter_args(%acc = %zero) -> (f32) {
        proton.record start "load"
        %xv = memref.load %x[%i] : memref<1048576xf32>
        %yv = memref.load %y[%i] : memref<1048576xf32>
        proton.record end "load"
        proton.record start "compute"
        %p = arith.mulf %xv, %a : f32
        %q = arith.addf %p, %yv : f32
        %r = arith.mulf %q, %q : f32
        %s = arith.addf %acc, %r : f32
        proton.record end "compute"
        scf.yield %s : f32
      }
      proton.record end "loop"
      memref.store %sum, %out[%gtid] : memref<1048576xf32>
      gpu.return
    }
  }
}
