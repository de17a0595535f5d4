// Each function breaks one rule of proton.record / proton.event; the verifier says which.
// RUN: proton-opt %s -split-input-file -verify-diagnostics

func.func @start_without_end() {
  // expected-error @+1 {{scope 'a' is started but never ended in this function}}
  proton.record start "a"
  return
}

// -----

func.func @end_without_start() {
  // expected-error @+1 {{'proton.record end' of scope 'a' without a matching start}}
  proton.record end "a"
  return
}

// -----

func.func @wrongly_nested() {
  proton.record start "a"
  // expected-note @+1 {{'b' was started here}}
  proton.record start "b"
  // expected-error @+1 {{scope 'a' ends while scope 'b', started inside it, is still open (scopes must nest)}}
  proton.record end "a"
  proton.record end "b"
  return
}

// -----

func.func @name_reused_while_open() {
  // expected-note @+1 {{'a' was started here}}
  proton.record start "a"
  // expected-error @+1 {{scope 'a' is started again while still open}}
  proton.record start "a"
  proton.record end "a"
  proton.record end "a"
  return
}

// -----

func.func @end_in_another_block(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{'a' was started here}}
  proton.record start "a"
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{scope 'a' must end in the block where it starts}}
    proton.record end "a"
  }
  return
}

// -----

func.func @empty_name() {
  // expected-error @+1 {{'proton.record' op needs a non-empty scope name}}
  proton.record start ""
  return
}

// -----

func.func @event_never_ended() {
  // expected-error @+1 {{event 'copy' has 1 start(s) and 0 end(s); it needs at least one of each}}
  %ev = proton.allocate_event "copy"
  proton.event start %ev
  return
}

// -----

func.func @event_and_scope_share_a_name() {
  proton.record start "copy"
  proton.record end "copy"
  // expected-error @+1 {{'copy' names both a proton.record scope and a proton event}}
  %ev = proton.allocate_event "copy"
  proton.event start %ev
  proton.event end %ev
  return
}

// -----

func.func @bad_segment(%blk: !llvm.ptr<1>) {
  // expected-error @+1 {{a segment holds a power-of-two number of bytes, at least 8 (one record), not 24}}
  %seg = proton_gpu.segment_alloc %blk {num_warps = 4 : i32, warp_stride = 1 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<24>
  return
}

// -----

func.func @bad_stride(%blk: !llvm.ptr<1>) {
  // expected-error @+1 {{warp_stride 4 does not divide num_warps 6}}
  %seg = proton_gpu.segment_alloc %blk {num_warps = 6 : i32, warp_stride = 4 : i32} : !llvm.ptr<1> -> !proton_gpu.segment<64>
  return
}

// -----

func.func @scope_id_too_large(%seg: !proton_gpu.segment<64>, %idx: !llvm.ptr, %c: i64) {
  // expected-error @+1 {{attribute 'scope_id' failed to satisfy constraint}}
  proton_gpu.circular_store start %seg, %idx, %c {scope_id = 256 : i32} : !proton_gpu.segment<64>, !llvm.ptr
  return
}

// -----

func.func @shared_segment_of_unknown_layout(%blk: !llvm.ptr<1>, %seg: !proton_gpu.segment<64, shared>, %idx: !llvm.ptr) {
  // expected-error @+1 {{'proton_gpu.finalize' op needs a shared segment defined by proton_gpu.segment_alloc}}
  proton_gpu.finalize %blk, %seg, %idx : !llvm.ptr<1>, !proton_gpu.segment<64, shared>, !llvm.ptr
  return
}

// -----

// expected-error @+1 {{expected 'shared'}}
func.func @bad_segment_keyword(%seg: !proton_gpu.segment<64, global>) {
  return
}
