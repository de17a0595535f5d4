// Option values --convert-proton-to-protongpu refuses, each with the reason.
// RUN: not proton-opt %s --convert-proton-to-protongpu="granularity=thread" 2>&1 | FileCheck %s --check-prefix=GRANULARITY
// RUN: not proton-opt %s --convert-proton-to-protongpu="buffer-size=3000" 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not proton-opt %s --convert-proton-to-protongpu="buffer-size=16 num-warps=4" 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not proton-opt %s --convert-proton-to-protongpu="buffer-type=local" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not proton-opt %s --convert-proton-to-protongpu="buffer-type=shared buffer-size=65536" 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not proton-opt %s --convert-proton-to-protongpu="buffer-strategy=flush" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not proton-opt %s --convert-proton-to-protongpu="granularity=warp-group num-warps=6" 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not proton-opt %s --convert-proton-to-protongpu="metadata-file=%t.missing/m.json" 2>&1 | FileCheck %s --check-prefix=FILE
// GRANULARITY: granularity=thread is not one of warp, warp-group, cta
// SIZE: buffer-size=3000 split among 4 profiled warps must give each a power-of-two ring of at least 8 bytes
// SMALL: buffer-size=16 split among 4 profiled warps must give each a power-of-two ring of at least 8 bytes
// TYPE: buffer-type=local is not one of global, shared
// SHARED: buffer-type=shared keeps the records in static shared memory, at most 49152 bytes per CTA, not buffer-size=65536
// STRATEGY: buffer-strategy=flush is not supported (supported: circular)
// GROUP: granularity=warp-group needs a multiple of 4 warps, not 6
// FILE: cannot write the metadata file '{{.*}}m.json': No such file or directory

gpu.module @kernels {
  gpu.func @k() kernel {
    proton.record start "a"
    proton.record end "a"
    gpu.return
  }
}
