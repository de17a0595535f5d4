#!/usr/bin/env bash
# Makes a relocatable bundle of a build: bundle/bin (protond, protonctl, the shim and its GPU
# tracer, the samples, the GPU tests and their workloads, benchmarks), bundle/share (the web
# page), bundle/python (protond.profiler) and
# bundle/lib (every shared library they need that a base system may lack, CUPTI included). The
# binaries find bundle/lib through RPATH $ORIGIN/../lib, so the folder can be copied to another
# Linux machine (such as the GPU machine) and run in place.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-rel}
out=${BUNDLE_DIR:-bundle}
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
for f in protond protonctl sample_workload libprotond_shim.so libprotond_shim_core.so libprotond_control.so \
         libprotond_cupti.so sample_gpu_workload protond_gpu_run_test \
         protond_scope_benchmark wide_tree_workload load_workload query_latency \
         protond_ingest_benchmark stall_workload protond_pc_sampling_test \
         instrumented_workload protond_instrumentation_gpu_test; do
  [ -e "$build_dir/bin/$f" ] && cp "$build_dir/bin/$f" "$out/bin/"
done
# The web page's files, where protonctl ui looks for them (../share/protond/web from bin/).
if [ -d "$build_dir/share/protond/web" ]; then
  mkdir -p "$out/share/protond" && cp -r "$build_dir/share/protond/web" "$out/share/protond/"
fi
# The kernels mlir-instrument compiled for the GPU tests (cubins and their metadata).
if [ -d "$build_dir/bin/kernels" ]; then cp -r "$build_dir/bin/kernels" "$out/bin/"; fi
# The C runtime and the CUDA driver (libcuda, which must match the machine's kernel module) come
# from the target system; everything else travels.
skip='^(linux-vdso|libc\.so|libm\.so|libpthread|libdl|librt|ld-linux|libgcc_s|libstdc\+\+|libcuda\.so)'
for f in "$out"/bin/*; do
  [ -f "$f" ] || continue
  ldd "$f" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ "$name" =~ $skip ]] || cp -n "$path" "$out/lib/"
  done
done
# Without debug information the bundle is a third of the size (the GPU machine has no debugger).
find "$out/bin" "$out/lib" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-debug {} +
# protond.profiler, the pure-Python package: PYTHONPATH=bundle/python finds it, and it finds the
# shim in bundle/bin.
mkdir -p "$out/python"
cp -r client-lib/python/protond "$out/python/"
find "$out/python" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$out"
