#!/usr/bin/env bash
# How a profiled process ended, on the GPU machine (docs/record-format.md, the region's
# exit_state): a PyTorch loop killed by SIGKILL while an attached session records it leaves a
# stopped session that names the kill and keeps the kernels recorded up to it; one that exits
# normally leaves no such line. Every step is checked; the exit code is 1 when any failed.
# Usage: tests/device/exit_check.sh [BUNDLE_DIR]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
start_daemon

# run_loop SECONDS: a PyTorch loop of adds with the shim preloaded, in the background (pid in
# `loop`); it touches $work/ready once its first add has run (importing torch takes seconds).
run_loop() {
  rm -f "$work/ready"
  env LD_PRELOAD="$bundle/bin/libprotond_shim.so" PROTOND_SOCKET="$socket" \
    python3 - "$1" "$work/ready" <<'PY' &
import pathlib, sys, time, torch
x = torch.ones(1024, device="cuda")
x.add_(1.0)
torch.cuda.synchronize()
pathlib.Path(sys.argv[2]).touch()
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    x.add_(1.0)
    torch.cuda.synchronize()
    time.sleep(0.001)
PY
  loop=$!
  wait_until 300 test -e "$work/ready" || fail "the loop did not run its first add in 30 s"
}

# stopped SESSION: whether protonctl sessions lists SESSION as stopped.
stopped() {
  "${ctl[@]}" sessions | awk -v id="$1" '$1 == id' | grep -q stopped
}

# stopped_problems NAME FILE: waits for session NAME to stop, then its problems in FILE.
stopped_problems() {
  find_session "$1"
  wait_until 100 stopped "$session" || fail "session $1 did not stop within 10 s"
  check_output "problems of $1" "$2" "${ctl[@]}" stop --session "$session"
}

echo "== killed while recording: the session names the kill and keeps its kernels"
run_loop 60
check "start on the loop to kill" "${ctl[@]}" start --pid "$loop" --name killed
sleep 2  # ten of CUPTI's 200 ms flush periods: the kernels reach protond before the kill
kill -9 "$loop"
wait "$loop" 2>/dev/null
stopped_problems killed "$work/killed.txt"
expect_line "killed's problem" "$work/killed.txt" \
  "problem: process $loop ended without exit\(\): killed by a signal, crashed, or _exit"
expect_tree "killed's kernels" "$session" "~add>=100"

echo "== exited normally while recording: no such line"
run_loop 2
check "start on the loop that exits" "${ctl[@]}" start --pid "$loop" --name exited
check "the loop's exit" wait "$loop"
stopped_problems exited "$work/exited.txt"
grep -q "ended without exit" "$work/exited.txt" &&
  fail "the loop exited normally, but its session says it did not"
expect_tree "exited's kernels" "$session" "~add>=100"

finish
