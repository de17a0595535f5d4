#!/bin/bash
# Slurm TaskProlog (slurm.conf: TaskProlog=/path/to/task-prolog.sh): starts every task with
# protond's shim preloaded, so that any job can be profiled on demand (`protonctl start --job J`)
# or join the session prolog.sh started. An idle shim costs one thread blocked in a read.
#
# Runs as the job's user, in the task's environment, just before the task starts. Slurm reads
# its standard output: each `export NAME=VALUE` line sets NAME in the task (VALUE is taken as is,
# to the end of the line; no shell quoting). The shim goes first in the task's LD_PRELOAD, once.
# Nothing is printed when the shim is not there: the task runs unprofiled.
#
# Settings: /etc/default/protond-slurm, or the file PROTOND_SLURM_CONFIG names (README.md).
config=${PROTOND_SLURM_CONFIG:-/etc/default/protond-slurm}
# The task's own PROTOND_SOCKET would be overridden by the settings' one; keep it for the shim.
task_socket=${PROTOND_SOCKET:-}
# shellcheck disable=SC1090
[ -r "$config" ] && . "$config"
shim=${PROTOND_SHIM:-/usr/lib/protond/libprotond_shim.so}
socket=${PROTOND_SOCKET:-/run/protond/protond.sock}

[ -r "$shim" ] || exit 0
# LD_PRELOAD's entries are separated by colons or blanks.
case " ${LD_PRELOAD//:/ } " in
  *" $shim "*) ;;
  *) echo "export LD_PRELOAD=$shim${LD_PRELOAD:+:$LD_PRELOAD}" ;;
esac
[ -n "$task_socket" ] || echo "export PROTOND_SOCKET=$socket"
exit 0
