#!/usr/bin/env bash
# The page against the real server: a protond in a temporary directory records four sessions
# (two runs of the sample workload to diff, a Python session with a scope named
# <img src=x onerror=alert(1)>, and a 10k-node tree), `protonctl ui` serves them, and
# page_check.mjs drives Chromium through every view. Exits 77 (skipped, with a message) where
# Node.js or Chromium is missing; fails where the page was not built.
#   real_page_test.sh BIN_DIR WEB_DIR ARTIFACTS_DIR
# PROTOND_WEB_ROUNDS=N runs the checks N times against the same server (bench/web_render.sh).
set -euo pipefail
bin=$1 web=$2 artifacts=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v node >/dev/null; then
  echo "SKIP: no node on PATH (Node.js 18 or later; scripts/install-deps.sh installs it)"
  exit 77
fi
if [[ ! -x ${CHROMIUM:-/usr/bin/chromium} ]]; then
  echo "SKIP: no Chromium at ${CHROMIUM:-/usr/bin/chromium} (scripts/install-deps.sh installs it)"
  exit 77
fi
[[ -f $web/index.html ]] || { echo "FAIL: $web/index.html is missing: scripts/build_web.sh $web"; exit 1; }

dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
sock=$dir/protond.sock
ctl() { "$bin/protonctl" --socket "$sock" "$@"; }

"$bin/protond" --socket "$sock" --state-dir "$dir/state" 2>"$dir/protond.log" &
pids+=($!)
for _ in $(seq 100); do ctl sessions >/dev/null 2>&1 && break; sleep 0.1; done
ctl sessions >/dev/null || { echo "FAIL: protond did not start"; cat "$dir/protond.log"; exit 1; }

ctl run --name sample-a -- "$bin/sample_workload" --steps 2 >/dev/null   # session 1
ctl run --name sample-b -- "$bin/sample_workload" --steps 5 >/dev/null   # session 2
(cd "$dir" && PROTOND_SOCKET=$sock PROTOND_SHIM=$bin/libprotond_shim.so PYTHONPATH=$repo/client-lib/python \
  python3 - <<'PY'                                                      # session 3
import protond.profiler as proton
proton.start("hostile-<b>names", hook=None)
with proton.scope("<img src=x onerror=alert(1)>"):
    with proton.scope("ctrl\x1b[31m\u202e"):
        with proton.scope("deeper"):
            with proton.scope("deepest"):
                pass
proton.finalize()
PY
)
ctl run --name big -- "$bin/wide_tree_workload" >/dev/null                # session 4

ctl ui --port 0 --web-dir "$web" >"$dir/ui.out" 2>"$dir/ui.err" &
pids+=($!)
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^protonctl ui: //p' "$dir/ui.out")
  [[ -n $url ]] && break
  sleep 0.1
done
[[ -n $url ]] || { echo "FAIL: protonctl ui printed no address"; cat "$dir/ui.err"; exit 1; }
for _ in $(seq "${PROTOND_WEB_ROUNDS:-1}"); do
  node "$repo/tests/web/page_check.mjs" "$url" 3 --diff 2 1 --big 4 --require-hostile \
    --metrics count --artifacts "$artifacts"
done
