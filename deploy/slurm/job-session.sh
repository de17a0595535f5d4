#!/bin/bash
# What prolog.sh (`job-session.sh start`) and epilog.sh (`job-session.sh stop`) do: for a job
# submitted with --comment=protond=NAME, start a session NAME of the job on this node that every
# process of the job joins when it registers (`protonctl start --job J --include-new`), or stop
# the job's running sessions here (`protonctl stop --job J`).
#
# Runs as root (SlurmdUser) with SLURM_JOB_ID, SLURM_JOB_UID, SLURM_JOB_GID and SLURM_JOB_COMMENT
# set. protonctl runs as the job's user, so the session is theirs. A prolog or epilog that fails
# drains the node: this always exits 0, and says what went wrong on stderr (slurmd's log).
#
# Settings: /etc/default/protond-slurm, or the file PROTOND_SLURM_CONFIG names (README.md).
action=${1:-}
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

case $action in
  start) args=(start --job "$SLURM_JOB_ID" --include-new --name "$name")
    failed="not started, the job runs unprofiled" ;;
  stop) args=(stop --job "$SLURM_JOB_ID")
    failed="not stopped" ;;
  *) echo "protond: job-session.sh takes start or stop, not '$action'" >&2
    exit 0 ;;
esac
if ! output=$(timeout "${PROTOND_TIMEOUT:-10}" setpriv --reuid="$SLURM_JOB_UID" \
  --regid="$SLURM_JOB_GID" --init-groups -- "$protonctl" --socket "$socket" "${args[@]}" 2>&1); then
  echo "protond: session '$name' of job $SLURM_JOB_ID $failed: ${output//$'\n'/ }" >&2
fi
exit 0
