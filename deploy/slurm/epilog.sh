#!/bin/bash
# Slurm Epilog (slurm.conf: Epilog=/path/to/epilog.sh): for a job submitted with
# --comment=protond=NAME, stops the job's running sessions on this node (the one prolog.sh
# started), so that everything they recorded is stored.
#
# Runs on each node of the job at its end, as root, with the same variables as the prolog.
# protonctl runs as the job's user. An epilog that fails drains the node: this one always exits
# 0, and says what went wrong on stderr (slurmd's log).
#
# Settings: /etc/default/protond-slurm, or the file PROTOND_SLURM_CONFIG names (README.md).
config=${PROTOND_SLURM_CONFIG:-/etc/default/protond-slurm}
# shellcheck disable=SC1090
[ -r "$config" ] && . "$config"
protonctl=${PROTONCTL:-/usr/bin/protonctl}
socket=${PROTOND_SOCKET:-/run/protond/protond.sock}

name=
IFS=$', \t' read -ra words <<<"${SLURM_JOB_COMMENT:-}"
for word in "${words[@]}"; do
  case $word in protond=?*) name=${word#protond=} ;; esac
done
[ -n "$name" ] || exit 0

if ! output=$(timeout "${PROTOND_TIMEOUT:-10}" setpriv --reuid="$SLURM_JOB_UID" \
  --regid="$SLURM_JOB_GID" --init-groups -- "$protonctl" --socket "$socket" \
  stop --job "$SLURM_JOB_ID" 2>&1); then
  echo "protond: session '$name' of job $SLURM_JOB_ID not stopped: ${output//$'\n'/ }" >&2
fi
exit 0
