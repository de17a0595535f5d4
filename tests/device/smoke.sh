#!/usr/bin/env bash
# Runs the bundle (scripts/bundle.sh) on a machine without the build tools, such as the GPU
# machine: the demo flow, the shim loaded by dlopen from Python and preloaded into PyTorch, and the
# CPU benchmarks. Needs no GPU. Every step is checked; the exit code is 1 when any failed
# (tests/device/lib.sh). Usage: tests/device/smoke.sh [BUNDLE_DIR]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
start_daemon

echo "== host: $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), $(nproc) cpus"
nvidia-smi -L 2>/dev/null || echo "no GPU"
echo "== sample workload under protonctl run"
check "sample_workload under protonctl run" \
  "${ctl[@]}" run --name sample -- "$bundle/bin/sample_workload"
find_session sample
check "tree of sample" "${ctl[@]}" tree "$session" -m cpu_time/ms,count,flops,bytes

echo "== Python: the shim by dlopen (ctypes), a session started from inside the process"
check "the shim by ctypes" env PROTOND_SOCKET="$socket" \
  python3 - "$bundle/bin/libprotond_shim.so" <<'PY'
import ctypes, sys
shim = ctypes.CDLL(sys.argv[1])
session = ctypes.c_uint64(0)
rc = shim.protond_session_start(b"python-ctypes", ctypes.byref(session))
print("abi", shim.protond_abi_version(), "start rc", rc, "session", session.value)
for i in range(1000):
    shim.protond_scope_enter(b"py_step")
    shim.protond_metric_int64(b"items", ctypes.c_int64(2))
    shim.protond_scope_exit(b"py_step")
codes = (rc, shim.protond_flush(), shim.protond_session_stop(session))
print("start, flush and stop rc", codes)
assert codes == (0, 0, 0), "a call failed"
PY
find_session python-ctypes
check_output "tree of python-ctypes" "$work/ctypes.txt" "${ctl[@]}" tree "$session" -m count,items
# 1000 py_step scopes of 2 items each.
expect_line "python-ctypes' scopes" "$work/ctypes.txt" "^ *1000 +2000  .*─ py_step$"

echo "== PyTorch with the shim preloaded (symbol clashes would show here)"
check "PyTorch with the shim preloaded" "${ctl[@]}" run --name torch -- python3 -c \
  "import torch; x = torch.ones(1024, device='cuda' if torch.cuda.is_available() else 'cpu'); print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), float(x.sum()))"
check "sessions" "${ctl[@]}" sessions

echo "== start-up cost of the shim (median of 20 runs of /bin/true, ms)"
check "start-up cost" python3 - "$bundle/bin/libprotond_shim.so" "$socket" <<'PY'
import os, subprocess, sys, time
def median_ms(extra):
    env = dict(os.environ, **extra)
    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        subprocess.run(["/bin/true"], env=env, check=True)
        samples.append(time.perf_counter() - t0)
    samples.sort()
    return 1000 * samples[len(samples) // 2]
print("no shim %.2f, shim %.2f" % (median_ms({}), median_ms({"LD_PRELOAD": sys.argv[1], "PROTOND_SOCKET": sys.argv[2]})))
PY

echo "== benchmarks"
# The medians and spreads only; the exit code is the benchmark's (pipefail), or grep's if it
# printed neither.
# shellcheck disable=SC2317  # called through check
benchmark() {
  "$bundle/bin/$1" --benchmark_repetitions=5 --benchmark_report_aggregates_only 2>&1 |
    grep -E "median|cv"
}
check "protond_scope_benchmark" benchmark protond_scope_benchmark
check "protond_ingest_benchmark" benchmark protond_ingest_benchmark
finish
