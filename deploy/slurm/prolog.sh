#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=/path/to/prolog.sh): for a job submitted with
# --comment=protond=NAME, starts a session NAME of the job on this node before its first task
# runs; every process of the job that registers with the node's protond joins it (the tasks need
# the shim preloaded: task-prolog.sh, or srun --protond). epilog.sh stops it at the job's end.
#
# Runs on each node of the job, as root (SlurmdUser), with SLURM_JOB_ID, SLURM_JOB_UID,
# SLURM_JOB_GID and SLURM_JOB_COMMENT set. protonctl runs as the job's user, so the session is
# theirs. A prolog that fails drains the node and requeues the job: this one always exits 0, and
# says what went wrong on stderr (slurmd's log).
#
# Settings: /etc/default/protond-slurm, or the file PROTOND_SLURM_CONFIG names (README.md).
config=${PROTOND_SLURM_CONFIG:-/etc/default/protond-slurm}
# shellcheck disable=SC1090
[ -r "$config" ] && . "$config"
protonctl=${PROTONCTL:-/usr/bin/protonctl}
socket=${PROTOND_SOCKET:-/run/protond/protond.sock}

# The session's name: the word protond=NAME of the job's comment (blank- or comma-separated).
name=
IFS=$', \t' read -ra words <<<"${SLURM_JOB_COMMENT:-}"
for word in "${words[@]}"; do
  case $word in protond=?*) name=${word#protond=} ;; esac
done
[ -n "$name" ] || exit 0

if ! output=$(timeout "${PROTOND_TIMEOUT:-10}" setpriv --reuid="$SLURM_JOB_UID" \
  --regid="$SLURM_JOB_GID" --init-groups -- "$protonctl" --socket "$socket" \
  start --job "$SLURM_JOB_ID" --include-new --name "$name" 2>&1); then
  echo "protond: session '$name' of job $SLURM_JOB_ID not started, the job runs unprofiled:" \
    "${output//$'\n'/ }" >&2
fi
exit 0
