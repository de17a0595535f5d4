#!/usr/bin/env bash
# The time of `protonctl history` over many stored always-on windows (docs/performance.md,
# "History"): a protond over a store of WINDOWS windows of NODES nodes each (history_windows_fill),
# then RUNS runs of each protonctl given, the median and the slowest printed; first, how long after
# its start protond had summed up the windows (as after an upgrade to schema 12). Give an older
# protonctl (one GetTree per window) beside the new one (one ListHistory) to compare; both talk
# to the same protond. COMMAND (default `history`) is the protonctl command timed: for example
# COMMAND="tree --command train -m count", the windows merged into one tree (GetRangeTree).
#   [COMMAND=...] history_latency.sh BIN_DIR [WINDOWS [NODES [RUNS [OTHER_PROTONCTL...]]]]
set -euo pipefail
bin=$1 windows=${2:-1000} nodes=${3:-50} runs=${4:-5}
read -r -a command <<< "${COMMAND:-history}"
shift $(( $# < 4 ? $# : 4 ))
dir=$(mktemp -d)
protond_pid=
cleanup() {
  [[ -n $protond_pid ]] && kill "$protond_pid" 2>/dev/null && wait "$protond_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p "$dir/state"
"$bin/history_windows_fill" "$dir/state/protond.db" "$windows" "$nodes"
started=$(date +%s%N)
"$bin/protond" --socket "$dir/protond.sock" --state-dir "$dir/state" 2>"$dir/protond.log" &
protond_pid=$!
ctl() { "$bin/protonctl" --socket "$dir/protond.sock" "$@"; }
for _ in $(seq 300); do ctl sessions >/dev/null 2>&1 && break; sleep 0.1; done
# The windows an older protond stored get their summaries in steps after the start: wait for all.
for _ in $(seq 600); do
  [[ $(ctl history 2>/dev/null | grep -c '(no summary)') == 0 ]] && break
  sleep 0.1
done
echo "the windows' summaries were all there $(( ($(date +%s%N) - started) / 1000000 )) ms after protond started" \
  "(polled every 100 ms)"
lines=$(ctl history | wc -l)
[[ $lines == $((windows + 1)) ]] || { echo "protonctl history listed $((lines - 1)) windows, not $windows"; exit 1; }

# time_runs NAME PROTONCTL: RUNS runs of COMMAND, each in ms; prints the median and the max.
time_runs() {
  local name=$1 protonctl=$2 times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$protonctl" --socket "$dir/protond.sock" "${command[@]}" >"$dir/out.$(basename "$protonctl")"
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  echo "$name's output begins:"
  head -4 "$dir/out.$(basename "$protonctl")"
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "$name ${command[*]}: median $(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p") ms, max $(echo "$sorted" | tail -1) ms" \
    "($runs runs, $windows windows of $nodes nodes)"
}
time_runs "$bin/protonctl" "$bin/protonctl"
for other in "$@"; do time_runs "$other" "$other"; done
