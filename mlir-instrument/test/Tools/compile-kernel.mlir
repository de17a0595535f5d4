// The whole path of scripts/compile-kernel.sh on the example kernel: a cubin that ptxas accepts
// for sm_90, the metadata the host needs, the six clock reads (none merged) in the PTX, and each
// record written without a branch: its clock read, then one predicated 8-byte store.
// REQUIRES: ptxas
// RUN: rm -rf %t && env PROTON_OPT=%proton_opt %scripts/compile-kernel.sh %S/../../examples/two_regions.mlir %t num-warps=4 buffer-size=8192
// RUN: test -s %t/kernel.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t/kernel.ptx
// RUN: FileCheck %s --check-prefix=RECORD < %t/kernel.ptx
// RUN: FileCheck %s --check-prefix=META < %t/metadata.json
// RUN: env PROTON_OPT=%proton_opt %scripts/compile-kernel.sh %S/../../examples/two_regions.mlir %t/shared buffer-type=shared
// RUN: test -s %t/shared/kernel.cubin
// RUN: FileCheck %s --check-prefix=SHARED < %t/shared/kernel.ptx

// PTX: .visible .entry two_regions(
// PTX-COUNT-5: .param .u64 two_regions_param_{{[0-4]}}
// PTX-NOT: .param
// PTX: .maxntid 128, 1, 1
// PTX-COUNT-6: mov.u64 {{.*}}%clock64;
// PTX-NOT: %clock64
// PTX: bar.sync 0;

// RECORD: mov.u64 {{%rd[0-9]+}}, %clock64;
// RECORD-NOT: bra
// RECORD: @%p{{[0-9]+}} st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// RECORD: mov.u64 {{%rd[0-9]+}}, %clock64;
// RECORD-NOT: bra
// RECORD: @%p{{[0-9]+}} st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// RECORD: mov.u64 {{%rd[0-9]+}}, %clock64;
// RECORD-NOT: bra
// RECORD: @%p{{[0-9]+}} st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// RECORD: mov.u64 {{%rd[0-9]+}}, %clock64;
// RECORD-NOT: bra
// RECORD: @%p{{[0-9]+}} st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// RECORD: mov.u64 {{%rd[0-9]+}}, %clock64;
// RECORD-NOT: bra
// RECORD: @%p{{[0-9]+}} st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// RECORD: mov.u64 {{%rd[0-9]+}}, %clock64;
// RECORD-NOT: bra
// RECORD: @%p{{[0-9]+}} st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// RECORD-NOT: %clock64

// META: "block_bytes": 8320,
// META: "kernel_name": "two_regions",
// META: "profile_arg_index": 4
// META: "scope_names": [
// META-NEXT: "loop",
// META-NEXT: "load",
// META-NEXT: "compute"

// SHARED: .visible .entry two_regions(
// SHARED: .shared .align 8 .b8 __proton_shared_records[8192];
// SHARED-COUNT-6: @%p{{[0-9]+}} st.shared.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// SHARED-COUNT-2: bar.sync 0;
