// The placement errors of --convert-proton-to-protongpu.
// RUN: proton-opt %s -split-input-file -verify-diagnostics --convert-proton-to-protongpu="buffer-size=8192 num-warps=4"

gpu.module @kernels {
  // A device function has no profile buffer to write to.
  // expected-error @+1 {{proton records are only supported in a gpu.func kernel; 'helper' is not one (it has no profile buffer)}}
  gpu.func @helper() {
    proton.record start "a"
    proton.record end "a"
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{num-warps=4 but kernel 'k' has a known_block_size of 8 warps}}
  gpu.func @k() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    proton.record start "a"
    proton.record end "a"
    gpu.return
  }
}
