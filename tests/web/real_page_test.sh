#!/usr/bin/env bash
# The page against the real server: a protond in a temporary directory records five sessions
# (two runs of the sample workload to diff, a Python session with a scope named
# <img src=x onerror=alert(1)>, a 10k-node tree, and a two-rank job's NCCL kernels, which are
# also the Kernels pane's GPU kernel records), `protonctl ui` serves them, and page_check.mjs drives
# Chromium through every view (the Job page against `protonctl tree --job`'s text). Then the
# History page: a second protond
# runs --always-on with 300 ms windows every 1 s over the sample workload (registered, no session
# of its own, started as <img src=x onerror=alert(1)>), a second `protonctl ui` serves it, and
# page_check.mjs --history checks the workload's windows on the page, --range-diff its later
# windows against its first through the page's Compare, and --history-live a second
# workload's windows appearing while the page is open. Last, a third protond serves the page
# itself (--web-listen, HTTPS, --tokens): page_check.mjs --sign-in types a token into its form,
# checks a session and the two-rank job's Job page (against its `tree --job`) signed in, and
# signs out with the page's button. Exits 77 (skipped, with a message) where
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
history_sock=$dir/history.sock
history_ctl() { "$bin/protonctl" --socket "$history_sock" "$@"; }

# start_protond SOCKET NAME [OPTIONS...]: a protond with its state and log under $dir/NAME*.
start_protond() {
  local socket=$1 name=$2
  shift 2
  "$bin/protond" --socket "$socket" --state-dir "$dir/$name-state" "$@" 2>"$dir/$name.log" &
  pids+=($!)
  for _ in $(seq 100); do "$bin/protonctl" --socket "$socket" sessions >/dev/null 2>&1 && break; sleep 0.1; done
  "$bin/protonctl" --socket "$socket" sessions >/dev/null ||
    { echo "FAIL: protond ($name) did not start"; cat "$dir/$name.log"; exit 1; }
}

# start_ui SOCKET NAME: `protonctl ui` over SOCKET; sets $url to the address it printed.
start_ui() {
  local socket=$1 name=$2
  "$bin/protonctl" --socket "$socket" ui --port 0 --web-dir "$web" >"$dir/$name.out" 2>"$dir/$name.err" &
  pids+=($!)
  url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^protonctl ui: //p' "$dir/$name.out")
    [[ -n $url ]] && break
    sleep 0.1
  done
  [[ -n $url ]] || { echo "FAIL: protonctl ui ($name) printed no address"; cat "$dir/$name.err"; exit 1; }
}

start_protond "$sock" protond
# The always-on one starts before the recordings below, so its windows gather meanwhile.
start_protond "$history_sock" history --always-on --always-on-window 300ms --always-on-period 1s
# Run under a hostile name, which the page must show as text in each window's "who".
hostile_workload="$dir/<img src=x onerror=alert(1)>"
ln -s "$bin/sample_workload" "$hostile_workload"
LD_PRELOAD=$bin/libprotond_shim.so PROTOND_SOCKET=$history_sock \
  "$hostile_workload" --steps 500 --step-ms 10 >/dev/null &
workload=$!
pids+=($workload)

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
# A two-rank job of NCCL kernels (no GPU needed) as a trace session: the Job page and its verdict,
# and GPU kernel records for the session page's Kernels pane.
SLURM_JOB_ID=web-job ctl run --data trace -- "$bin/nccl_kernels_workload" 10 20 >/dev/null # session 5
ctl tree --job web-job >"$dir/job_tree.txt"

start_ui "$sock" ui
for _ in $(seq "${PROTOND_WEB_ROUNDS:-1}"); do
  node "$repo/tests/web/page_check.mjs" "$url" 3 --diff 2 1 --big 4 --require-hostile \
    --metrics count --job web-job "$dir/job_tree.txt" --panes 5 --artifacts "$artifacts"
done

# The workload's windows, once it has exited and its last window has stopped, so that the page
# and the API list the same ones: at least two (the always-on test's count for a few periods).
wait "$workload"
windows() { history_ctl history --pid "$workload" | tail -n +2; }
for _ in $(seq 100); do
  [[ $(windows) == *" so far "* ]] || break
  sleep 0.1
done
[[ $(windows | grep -vc ' so far ') -ge 2 ]] ||
  { echo "FAIL: fewer than 2 stopped always-on windows of pid $workload"; history_ctl history; cat "$dir/history.log"; exit 1; }
# And one that always-on profiles now, for the page's live refresh: a window a second.
LD_PRELOAD=$bin/libprotond_shim.so PROTOND_SOCKET=$history_sock \
  "$bin/sample_workload" --steps 6000 --step-ms 10 >/dev/null &
live=$!
pids+=($live)
start_ui "$history_sock" history-ui
node "$repo/tests/web/page_check.mjs" "$url" --history "$workload" --range-diff "$workload" \
  --history-live "$live" --artifacts "$artifacts"

# protond's own page (--web-listen): HTTPS with a self-signed certificate of the test's, a token
# typed into its sign-in form, one session checked signed in, and its "Sign out" button.
web_sock=$dir/web.sock
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/key.pem" \
  -out "$dir/cert.pem" -days 2 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && echo "$token $(id -u)" >"$dir/tokens" && printf '%s' "$token" >"$dir/token")
start_protond "$web_sock" web --listen 127.0.0.1:0 --tls-cert "$dir/cert.pem" \
  --tls-key "$dir/key.pem" --tokens "$dir/tokens" --web-listen 127.0.0.1:0 --web-dir "$web"
"$bin/protonctl" --socket "$web_sock" run --name signed-in -- "$bin/sample_workload" --steps 2 >/dev/null
# The Job page on protond's own page: the same two-rank job as above, against its tree --job.
SLURM_JOB_ID=web-job "$bin/protonctl" --socket "$web_sock" run --data trace -- \
  "$bin/nccl_kernels_workload" 10 20 >/dev/null
"$bin/protonctl" --socket "$web_sock" tree --job web-job >"$dir/web_job_tree.txt"
web_port=$(sed -n 's/.*, web port \([0-9]*\)$/\1/p' "$dir/web.log")
[[ -n $web_port ]] || { echo "FAIL: protond logged no web port"; cat "$dir/web.log"; exit 1; }
node "$repo/tests/web/page_check.mjs" "https://127.0.0.1:$web_port/" 1 --sign-in "$dir/token" --metrics count \
  --job web-job "$dir/web_job_tree.txt" --artifacts "$artifacts/protond"
