#!/usr/bin/env bash
# The Slurm SPANK plugin (deploy/slurm) under a real one-node Slurm on loopback: Debian's munged,
# slurmctld and slurmd, started by hand in a temporary directory (no systemd, no cgroups: the
# processes are tracked by proctrack/linuxproc), and a private protond there too. It checks:
#   - srun --protond: the tasks register with protond (the shim is preloaded), and a session
#     started on the running job with protonctl records both;
#   - srun --protond=NAME: a session NAME of the job is started before the tasks run and stopped
#     when the step ends, with the steps of both tasks;
#   - the scripts instead (Prolog, Epilog, TaskProlog): the tasks register, and a job submitted
#     with --comment=protond=NAME gets the same session;
#   - with protond stopped, srun --protond=NAME still exits 0, with one message from protond.
# The session parts need `protonctl start --job J --include-new`; a protonctl without it says
# which parts it did not run.
# Exits 77 (skipped) when Slurm or munge is not installed or the plugin was not built.
# PROTOND_BIN_DIR is the build's bin folder (ctest sets it).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PROTOND_BIN_DIR:-$repo/build/bin}

skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}
fail() {
  [ -n "${tmp:-}" ] && show_logs
  echo "FAILED: $*" >&2
  exit 1
}

for tool in munged mungekey slurmctld slurmd srun sinfo squeue scontrol; do
  command -v "$tool" >/dev/null ||
    skip "$tool is not installed (apt-get install slurmctld slurmd slurm-client munge)"
done
[ -f "$bin/spank_protond.so" ] ||
  skip "$bin/spank_protond.so was not built (it needs slurm/spank.h: apt-get install libslurm-dev)"
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs as their users"
for file in protond protonctl sample_workload libprotond_shim.so; do
  [ -x "$bin/$file" ] || [ -f "$bin/$file" ] || fail "$bin/$file is missing: build it first"
done

# In /tmp, not $TMPDIR: unix socket paths are short.
tmp=$(mktemp -d /tmp/protond-slurm.XXXXXX)
pids=()
teardown() {
  # Jobs first, while slurmd is there to end them; then the daemons, newest first.
  if [ -n "${SLURM_CONF:-}" ]; then
    scancel --quiet --user "$(id -un)" 2>/dev/null || true
    for _ in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ -n "${PROTOND_SLURM_TEST_KEEP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap teardown EXIT

show_logs() {
  for log in "$tmp"/*.log "$tmp"/*.out "$tmp"/munge/munged.log; do
    [ -f "$log" ] && { echo "== $log"; tail -n 40 "$log"; }
  done >&2
}

# Two free TCP ports on loopback (a Slurm of the machine, or another run of this test, may hold
# the default ones).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')

# munge: a key and a socket of our own. Jobs run as their users, whose srun and tasks need
# the munge socket, slurm.conf and protond's socket: the folders are open to all.
chmod 755 "$tmp"
mkdir -m 755 "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null
munged --foreground --force --socket="$tmp/munge/munge.sock" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
  --seed-file="$tmp/munge/munged.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)

socket=$tmp/protond.sock
node=$(hostname -s)
mkdir "$tmp/state" "$tmp/spool"
cat >"$tmp/plugstack.conf" <<EOF
optional $bin/spank_protond.so shim=$bin/libprotond_shim.so socket=$socket protonctl=$bin/protonctl
EOF
cat >"$tmp/slurm.conf" <<EOF
ClusterName=protond$$
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
PlugStackConfig=$tmp/plugstack.conf
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

for _ in $(seq 50); do [ -S "$tmp/munge/munge.sock" ] && break; sleep 0.1; done
slurmctld -D -i >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)

"$bin/protond" --socket "$socket" --state-dir "$tmp/protond" >"$tmp/protond.out" 2>&1 &
protond_pid=$!
pids+=("$protond_pid")

idle=
for _ in $(seq 300); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null || true)
  [ "$state" = idle ] && { idle=1; break; }
  sleep 0.1
done
[ -n "$idle" ] || fail "the node is not idle after 30 s (sinfo: '${state:-}')"
echo "slurm: node $node idle (slurmctld port $ctld_port, slurmd port $slurmd_port)"

ctl=("$bin/protonctl" --socket "$socket")
workload=("$bin/sample_workload" --threads 0)

# The id of the one job named NAME in the queue.
job_named() {
  local id
  for _ in $(seq 100); do
    id=$(squeue -h -n "$1" -o %i)
    [ -n "$id" ] && { echo "$id"; return; }
    sleep 0.1
  done
  fail "no job $1 in the queue"
}

# Until every job has ended, epilogs and the steps' SPANK exit included.
wait_queue_empty() {
  for _ in $(seq 200); do
    [ -z "$(squeue -h)" ] && return
    sleep 0.1
  done
  squeue >&2
  fail "jobs are still in the queue after 20 s"
}

# How many processes of job $1 protonctl processes lists (its JOB column is JOB.STEP).
registered() {
  "${ctl[@]}" processes | awk -v job="$1" '
    { for (i = 1; i <= NF; i++) if ($i ~ ("^" job "\\.[0-9]+$")) { n++; break } }
    END { print n + 0 }'
}

wait_registered() {
  for _ in $(seq 100); do
    [ "$(registered "$1")" -eq "$2" ] && return
    sleep 0.1
  done
  "${ctl[@]}" processes >&2
  fail "$2 processes of job $1 did not register with protond"
}

# The session named $1: "ID STATE PROCESSES".
session_named() {
  "${ctl[@]}" sessions | awk -v name="$1" '$2 == name { print $1, $3, $4 }'
}

# The count of scope $2 in session $1's tree (summed over the places it appears).
scope_count() {
  "${ctl[@]}" tree "$1" -m count | awk -v scope="$2" '$NF == scope { n += $1 } END { print n + 0 }'
}

# Session $1 is stopped and holds the steps of both tasks, each of which ran $2. With $3 "all",
# every step (the plugin's tasks record into it from the start: PROTOND_SESSION); else a task
# joins the session when it registers, some 200 ms after it starts (PROTOND_CONTROL_DELAY_MS), so
# the steps of that first moment are not in it: more steps than one task ran, and at most both
# tasks' all.
check_session() {
  local name=$1 steps=$2 all=${3:-} id state processes count
  read -r id state processes < <(session_named "$name") || true
  [ -n "${id:-}" ] || { "${ctl[@]}" sessions >&2; fail "no session named $name"; }
  count=$(scope_count "$id" step)
  echo "session $name: id $id, $state, $processes processes, $count steps"
  "${ctl[@]}" tree "$id" -m count
  [ "$state" = stopped ] || fail "session $name is $state, not stopped, after the step"
  [ "$processes" -eq 2 ] || fail "session $name has $processes processes, not the step's 2"
  if [ -n "$all" ] && [ "$count" -ne $((2 * steps)) ]; then
    fail "session $name: $count steps, not both tasks' $((2 * steps))"
  fi
  if [ "$count" -le "$steps" ] || [ "$count" -gt $((2 * steps)) ]; then
    fail "session $name: $count steps, not more than one task's $steps and at most $((2 * steps))"
  fi
}

# The session part needs `protonctl start --job J --include-new` (and `stop --job J`).
# (Without --job, start fails either way; what it says tells whether it knows the flag.)
include_new=1
case $("${ctl[@]}" start --include-new 2>&1 || true) in
  *"unexpected argument '--include-new'"*) include_new= ;;
esac

srun --help 2>&1 | grep -q -- '--protond' ||
  fail "srun does not know --protond: the plugin did not load (see slurmd.log)"

echo "== srun --protond: the tasks register; protonctl start --job records them"
srun --protond -J ondemand -N1 -n2 "${workload[@]}" --steps 400 --step-ms 10 &
srun_pid=$!
job=$(job_named ondemand)
wait_registered "$job" 2
"${ctl[@]}" start --job "$job" --name ondemand
wait "$srun_pid" || fail "srun --protond exited $?"
wait_queue_empty
read -r id state processes < <(session_named ondemand) || true
[ "${processes:-0}" -eq 2 ] || fail "session ondemand has ${processes:-no} processes, not 2"
steps=$(scope_count "$id" step)
[ "${steps:-0}" -gt 0 ] || fail "session ondemand recorded no step"
echo "session ondemand: id $id, $state, $processes processes, $steps steps"

echo "== srun --protond=mysession: a session of the job, over the whole step"
if [ -n "$include_new" ]; then
  srun --protond=mysession -N1 -n2 "${workload[@]}" --steps 200 --step-ms 10
  wait_queue_empty
  check_session mysession 200 all
else
  echo "NOT RUN: this protonctl has no 'start --include-new' yet (it comes with main)" >&2
fi

echo "== prolog.sh, task-prolog.sh, epilog.sh: srun --comment=protond=viaprolog"
cat >"$tmp/protond-slurm.conf" <<EOF
PROTOND_SHIM=$bin/libprotond_shim.so
PROTOND_SOCKET=$socket
PROTONCTL=$bin/protonctl
EOF
for script in prolog epilog task-prolog; do
  printf '#!/bin/sh\nPROTOND_SLURM_CONFIG=%s exec %s\n' "$tmp/protond-slurm.conf" \
    "$repo/deploy/slurm/$script.sh" >"$tmp/$script"
  chmod +x "$tmp/$script"
done
printf 'Prolog=%s\nEpilog=%s\nTaskProlog=%s\n' "$tmp/prolog" "$tmp/epilog" "$tmp/task-prolog" \
  >>"$SLURM_CONF"
scontrol reconfigure
srun -J scripts --comment=protond=viaprolog -N1 -n2 "${workload[@]}" --steps 200 --step-ms 10 &
srun_pid=$!
wait_registered "$(job_named scripts)" 2  # the task prolog preloaded the shim
wait "$srun_pid" || fail "srun with the scripts exited $?"
wait_queue_empty
if [ -n "$include_new" ]; then
  check_session viaprolog 200
else
  echo "NOT RUN: the prolog's session (no 'start --include-new' in this protonctl yet)" >&2
fi

echo "== protond stopped: srun --protond=down exits 0, with one message"
kill "$protond_pid"
wait "$protond_pid" || true
srun --protond=down -N1 -n2 "${workload[@]}" --steps 5 2>"$tmp/down.err" ||
  { cat "$tmp/down.err" >&2; fail "srun --protond=down exited $? with protond stopped"; }
cat "$tmp/down.err"
[ "$(grep -c protond "$tmp/down.err")" -eq 1 ] || fail "not exactly one message from protond"
wait_queue_empty

echo "PASSED"
