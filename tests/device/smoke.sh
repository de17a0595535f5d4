#!/usr/bin/env bash
# Runs the bundle (scripts/bundle.sh) on a machine without the build tools, such as the GPU
# machine: the demo flow, the shim loaded by dlopen from Python and preloaded into PyTorch, and the
# CPU benchmarks. Usage: tests/device/smoke.sh [BUNDLE_DIR]
set -uo pipefail
bundle=$(cd "${1:-bundle}" && pwd)
work=$(mktemp -d)
socket=$work/protond.sock
ctl=("$bundle/bin/protonctl" --socket "$socket")
"$bundle/bin/protond" --socket "$socket" --state-dir "$work/state" 2>"$work/protond.log" &
daemon=$!
trap 'kill $daemon; wait $daemon; echo "== protond log"; cat "$work/protond.log"; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done

echo "== host: $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), $(nproc) cpus"
nvidia-smi -L 2>/dev/null || echo "no GPU"
echo "== sample workload under protonctl run"
"${ctl[@]}" run --name sample -- "$bundle/bin/sample_workload"
"${ctl[@]}" tree 1 -m cpu_time/ms,count,flops,bytes

echo "== Python: the shim by dlopen (ctypes), a session started from inside the process"
PROTOND_SOCKET=$socket python3 - "$bundle/bin/libprotond_shim.so" <<'PY'
import ctypes, sys
shim = ctypes.CDLL(sys.argv[1])
session = ctypes.c_uint64(0)
rc = shim.protond_session_start(b"python-ctypes", ctypes.byref(session))
print("abi", shim.protond_abi_version(), "start rc", rc, "session", session.value)
for i in range(1000):
    shim.protond_scope_enter(b"py_step")
    shim.protond_metric_int64(b"items", ctypes.c_int64(2))
    shim.protond_scope_exit(b"py_step")
print("flush rc", shim.protond_flush(), "stop rc", shim.protond_session_stop(session))
PY
"${ctl[@]}" tree 2 -m count,items

echo "== PyTorch with the shim preloaded (symbol clashes would show here)"
"${ctl[@]}" run --name torch -- python3 -c \
  "import torch; x = torch.ones(1024, device='cuda' if torch.cuda.is_available() else 'cpu'); print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), float(x.sum()))"
"${ctl[@]}" sessions

echo "== start-up cost of the shim (median of 20 runs of /bin/true, ms)"
python3 - "$bundle/bin/libprotond_shim.so" "$socket" <<'PY'
import os, subprocess, sys, time
def median_ms(extra):
    env = dict(os.environ, **extra)
    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        subprocess.run(["/bin/true"], env=env)
        samples.append(time.perf_counter() - t0)
    samples.sort()
    return 1000 * samples[len(samples) // 2]
print("no shim %.2f, shim %.2f" % (median_ms({}), median_ms({"LD_PRELOAD": sys.argv[1], "PROTOND_SOCKET": sys.argv[2]})))
PY

echo "== benchmarks"
"$bundle/bin/protond_scope_benchmark" --benchmark_repetitions=5 --benchmark_report_aggregates_only 2>&1 | grep -E "median|cv"
"$bundle/bin/protond_ingest_benchmark" --benchmark_repetitions=5 --benchmark_report_aggregates_only 2>&1 | grep -E "median|cv"
