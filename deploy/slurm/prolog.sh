#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=/path/to/prolog.sh): for a job submitted with
# --comment=protond=NAME, starts a session NAME of the job on this node before its first task
# runs; every process of the job that registers with the node's protond joins it (the tasks need
# the shim preloaded: task-prolog.sh, or srun --protond). epilog.sh stops it at the job's end.
# job-session.sh, beside this script, does the work and always exits 0.
exec "$(dirname "$0")/job-session.sh" start
