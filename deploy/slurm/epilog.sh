#!/bin/bash
# Slurm Epilog (slurm.conf: Epilog=/path/to/epilog.sh): for a job submitted with
# --comment=protond=NAME, stops the job's running sessions on this node (the one prolog.sh
# started), so that everything they recorded is stored. job-session.sh, beside this script, does
# the work and always exits 0.
exec "$(dirname "$0")/job-session.sh" stop
