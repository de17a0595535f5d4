# shellcheck shell=bash
# What the device scripts share (sourced, not run): the bundle, a private protond in a temporary
# folder, and checked steps.
#
# A failed step does not stop the script. A run on the GPU machine is scarce, so every step runs
# and reports, and `finish` lists every failure at the end and exits 1 when there is one: the
# exit code is 0 only when every step held. (set -e would stop at the first failure and hide the
# rest.) The GPU tests fail rather than skip where no GPU is usable (tests/gpu/gpu_required.h):
# on the GPU machine that is a broken driver, not a pass.
export PROTOND_REQUIRE_GPU=1

failures=()
daemon=""

# device_setup BUNDLE_DIR: sets bundle, here (the repository), work (a temporary folder, removed
# on exit with protond stopped), socket and ctl (protonctl on that socket).
device_setup() {
  bundle=$(cd "$1" && pwd) || {
    echo "no bundle at $1 (scripts/bundle.sh makes one)"
    exit 1
  }
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  work=$(mktemp -d)
  socket=$work/protond.sock
  ctl=("$bundle/bin/protonctl" --socket "$socket")
  trap 'stop_daemon; rm -rf "$work"' EXIT
}

# fail WHAT: a failed step.
fail() {
  failures+=("$1")
  echo "FAIL: $1"
}

# check WHAT COMMAND...: runs COMMAND (a program or a function); a non-zero exit code fails WHAT.
# Not in a subshell, a pipeline or $(...): the failure would be lost there.
check() {
  local what=$1
  shift
  "$@"
  local code=$?
  [ "$code" -eq 0 ] || fail "$what (exit code $code)"
  return "$code"
}

# check_output WHAT FILE COMMAND...: check, with COMMAND's output kept in FILE and shown.
check_output() {
  local what=$1 file=$2
  shift 2
  "$@" >"$file"
  local code=$?
  cat "$file"
  [ "$code" -eq 0 ] || fail "$what (exit code $code)"
  return "$code"
}

# expect_line WHAT FILE REGEX: some line of FILE matches REGEX (grep -E), else WHAT fails.
expect_line() {
  grep -Eq -- "$3" "$2" || fail "$1: no line of $(basename "$2") matches '$3'"
}

# in_dir DIR COMMAND...: COMMAND run in DIR (for check: `check WHAT in_dir DIR ...`).
in_dir() {
  (cd "$1" && shift && "$@")
}

# wait_until TRIES COMMAND...: runs COMMAND every 0.1 s until it succeeds, at most TRIES times;
# whether it did.
wait_until() {
  local tries=$1
  shift
  for _ in $(seq "$tries"); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# start_daemon: protond serving $socket, its store in $work/state, stopped on exit.
start_daemon() {
  "$bundle/bin/protond" --socket "$socket" --state-dir "$work/state" 2>"$work/protond.log" &
  daemon=$!
  wait_until 50 test -S "$socket" || fail "protond made no socket in 5 s"
}

# stop_daemon: the protond of start_daemon stopped, and the end of its log shown.
stop_daemon() {
  [ -n "$daemon" ] || return 0
  kill "$daemon"
  wait "$daemon"
  daemon=""
  echo "== protond log (last 20 lines)"
  tail -20 "$work/protond.log"
}

# find_session NAME: sets `session` to the id of the last session named NAME (0 if none: a
# failure, and the steps that use it fail too).
find_session() {
  session=$("${ctl[@]}" sessions |
    awk -v name="$1" 'NR > 1 && $2 == name { id = $1 } END { print id + 0 }')
  [ "$session" != 0 ] || fail "no session named $1"
}

# expect_tree WHAT SESSION RULE...: the session's kernels (its Hatchet export) hold every RULE of
# tests/gpu/hatchet_check.py (PATH=N, PATH>=N); an empty tree fails whatever the rules.
expect_tree() {
  local what=$1 id=$2
  shift 2
  local file=$work/session_$id.hatchet
  check "$what: export of session $id" "${ctl[@]}" export "$id" --format hatchet -o "$file" \
    --force &&
    check "$what" python3 "$here/tests/gpu/hatchet_check.py" "$file" "$@"
}

# finish: protond stopped, every failure listed last, and the exit code (1 when a step failed).
finish() {
  stop_daemon
  if [ "${#failures[@]}" -eq 0 ]; then
    echo "== $(basename "$0"): every step held"
    exit 0
  fi
  echo "== $(basename "$0"): ${#failures[@]} failed steps"
  printf '  %s\n' "${failures[@]}"
  exit 1
}
