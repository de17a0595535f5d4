#!/usr/bin/env bash
# GPU check of `protonctl job` (issue 32) with a bundle (scripts/bundle.sh) on a machine with two
# GPUs: a DDP job of two ranks (tests/gpu/ddp_train.py: the tiny GPT-2, random init, AdamW, 30
# steps, one all-reduce per step, fused AdamW), once with rank 1 held 10 ms before each step (a
# busy wait: PROTOND_TEST_DELAY_KIND, default spin here) and once without, each recorded two ways: a tree
# session, whose collectives come from NCCL's profiler plugin in the shim, and `--data trace` with
# NCCL_PROFILER_PLUGIN=none, where `protonctl job` matches NCCL's kernels in launch order. Checks:
#  - with the delay, the verdict names rank 1, late by 10 ms within 20%;
#  - without it, no rank is named, unless the job's own clock has a rank clearly late (the ranks
#    write when they reached each all-reduce; tests/device/job_arrivals.py): a job need not be
#    balanced by itself;
#  - every verdict agrees with the job's own clock (the rank, and the lateness within 20%);
#  - the job's results are unchanged: each profiled run's last loss is the unprofiled run's;
#  - the plugin's report says it came from the plugin, and its arrivals are the GPUs' (each
#    call's kernel, paired through CUPTI's correlation id);
#  - the delayed plugin session's tree has its all_reduce calls as a node with their kernels' GPU
#    time and rank 0's wait, and `tree --job` of it ends with the verdict naming rank 1.
# The exit code is 1 when any check failed (tests/device/lib.sh).
# Usage: tests/device/job_verdict_check.sh [BUNDLE_DIR]
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
device_setup "${1:-bundle}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 2 ] || fail "nvidia-smi lists $gpus GPUs; the job needs two"
start_daemon
torchrun=$(command -v torchrun || echo torchrun)
delay_kind=${PROTOND_TEST_DELAY_KIND:-spin}
# Fused AdamW: with foreach's, a late rank launches its optimizer's many kernels after its late
# all-reduce, while the others' were queued long before, so it starts its next step late too and
# each step it arrives 4-9 ms later than its delay (docs/jobs.md).
job_env=(PYTHONPATH="$bundle/python" PROTOND_TEST_MODEL=tiny PROTOND_TEST_STEPS=30
  PROTOND_TEST_SYNC_EACH_STEP=1 PROTOND_TEST_DELAY_RANK=1 PROTOND_TEST_DELAY_KIND="$delay_kind"
  PROTOND_TEST_FUSED_ADAMW="${PROTOND_TEST_FUSED_ADAMW:-1}")

# The job without protond, with and without the delay: the loss every profiled run must end
# with, and what the job's own clock says of it when nothing profiles it.
for delay_ms in 0 10; do
  echo "== unprofiled: torchrun --nproc_per_node 2, rank 1 held $delay_ms ms ($delay_kind)"
  mkdir -p "$work/unprofiled$delay_ms.arrivals"
  check "unprofiled, $delay_ms ms: the job" env "${job_env[@]}" PROTOND_TEST_DELAY_MS="$delay_ms" \
    PROTOND_TEST_ARRIVALS_DIR="$work/unprofiled$delay_ms.arrivals" \
    "$torchrun" --nproc_per_node 2 "$here/tests/gpu/ddp_train.py" >"$work/unprofiled$delay_ms.out"
  cat "$work/unprofiled$delay_ms.out"
  check "unprofiled, $delay_ms ms: the job's own clock" \
    python3 "$here/tests/device/job_arrivals.py" "$work/unprofiled$delay_ms.arrivals" -
done
cp "$work/unprofiled0.out" "$work/unprofiled.out"

# expect_same_loss NAME: each rank's last loss in $work/NAME.out is the unprofiled run's.
expect_same_loss() {
  local want got
  # -o: torchrun may join the two ranks' last lines into one ("LOSS 0 6.04LOSS 1 6.04").
  want=$(grep -oE 'LOSS [0-9]+ [-+.0-9e]+' "$work/unprofiled.out" | sort)
  got=$(grep -oE 'LOSS [0-9]+ [-+.0-9e]+' "$work/$1.out" | sort)
  if [ -z "$want" ] || [ "$got" != "$want" ]; then
    fail "$1: the job's losses changed under protond: '$got' against '$want' unprofiled"
  else
    echo "losses as unprofiled: $(echo "$got" | tr '\n' ' ')"
  fi
}

# run_job NAME DELAY_MS HOW: the DDP job in a session named NAME, rank 1 held DELAY_MS before
# each step, recorded HOW: "plugin" (a tree session; the shim's NCCL plugin records the
# collectives) or "kernels" (a trace session without the plugin); its output in $work/NAME.out,
# its ranks' arrivals in $work/NAME.arrivals; then `protonctl job` of it, kept in $work/NAME.job,
# and the verdict compared with the job's own clock.
run_job() {
  local name=$1 delay_ms=$2 how=$3
  local recording=(--name "$name")
  local plugin=()
  [ "$how" = kernels ] && recording+=(--data trace) && plugin=(NCCL_PROFILER_PLUGIN=none)
  echo "== $name: torchrun --nproc_per_node 2, rank 1 held $delay_ms ms ($delay_kind) before" \
    "each step ($how)"
  mkdir -p "$work/$name.arrivals"
  check "$name: the job" env "${job_env[@]}" PROTOND_TEST_DELAY_MS="$delay_ms" \
    SLURM_JOB_ID="verdict-$name" \
    PROTOND_TEST_ARRIVALS_DIR="$work/$name.arrivals" "${plugin[@]}" \
    "${ctl[@]}" run "${recording[@]}" -- \
    "$torchrun" --nproc_per_node 2 "$here/tests/gpu/ddp_train.py" >"$work/$name.out"
  cat "$work/$name.out"
  expect_same_loss "$name"
  find_session "$name"
  echo "$session" >"$work/$name.session"
  echo "== protonctl job $session"
  check_output "$name: protonctl job" "$work/$name.job" "${ctl[@]}" job "$session"
  check_output "$name: the verdict agrees with the job's own clock" "$work/$name.clock" \
    python3 "$here/tests/device/job_arrivals.py" "$work/$name.arrivals" "$work/$name.job"
}

# expect_no_rank_named NAME: the verdict of NAME names no rank, unless the job's own clock had a
# rank late (job_arrivals.py: not balanced; the agreement check then judged the verdict).
expect_no_rank_named() {
  grep -Eq '^rank [0-9]+ \(pid ' "$work/$1.job" || return 0
  if grep -q '^job clock: the job is balanced$' "$work/$1.clock"; then
    fail "$1: a rank is named late, and the job's own clock has the job balanced"
  else
    echo "$1: a rank is named, and the job's own clock has that rank late too: the job was" \
      "not balanced by itself"
  fi
}

# expect_lateness WHAT FILE LOW_MS HIGH_MS: the verdict's "on average X ms after the first" has
# LOW_MS <= X <= HIGH_MS.
expect_lateness() {
  local ms
  ms=$(sed -nE 's/.* on average ([0-9.]+) ms after the first.*/\1/p' "$2" | head -1)
  if [ -z "$ms" ]; then
    fail "$1: the verdict gives no lateness in ms"
  elif ! awk -v ms="$ms" -v low="$3" -v high="$4" 'BEGIN { exit !(ms >= low && ms <= high) }'; then
    fail "$1: lateness $ms ms is not within $3..$4 ms"
  else
    echo "lateness $ms ms (expected $3..$4 ms)"
  fi
}

for how in plugin kernels; do
  run_job "${how}_delayed" 10 "$how"
  expect_line "$how, delayed: rank 1 is named late" "$work/${how}_delayed.job" \
    '^rank 1 \(pid [0-9]+, .*\) arrives last at [0-9]+ of [0-9]+ '
  expect_lateness "$how, delayed: lateness within 20% of 10 ms" "$work/${how}_delayed.job" 8 12

  run_job "${how}_undelayed" 0 "$how"
  expect_no_rank_named "${how}_undelayed"
done
expect_line "plugin: the report says its records came from NCCL's profiler plugin" \
  "$work/plugin_delayed.job" "profiler plugin"
for name in plugin_delayed plugin_undelayed; do
  expect_line "$name: every judged call's arrivals are its kernels' GPU starts" "$work/$name.job" \
    "^arrivals: when each rank's GPU began the call's NCCL kernel"
done

# The calls in the tree (tests/device/job_verdict_check.sh's promise above).
tree_session=$(cat "$work/plugin_delayed.session")
echo "== protonctl tree $tree_session -m nccl_calls,nccl_bytes,nccl_time,nccl_bus_bw,nccl_wait"
check_output "plugin_delayed: protonctl tree with the calls" "$work/plugin_delayed.tree" \
  "${ctl[@]}" tree "$tree_session" -m nccl_calls,nccl_bytes,nccl_time,nccl_bus_bw,nccl_wait
expect_line "plugin_delayed: the all_reduce calls are a node with calls, bytes, time, bus bw and wait" \
  "$work/plugin_delayed.tree" \
  '^ *[1-9][0-9]* +[1-9][0-9]* +[1-9][0-9]* +[0-9.]+ +[1-9][0-9]* .*all_reduce \[nccl, 2 ranks'
if grep -q "host's time" "$work/plugin_delayed.tree"; then
  fail "plugin_delayed: some calls' time is the host's, not their kernels'"
fi
echo "== protonctl tree $tree_session --rank 0 -m nccl_calls,nccl_wait (rank 0 waits)"
"${ctl[@]}" tree "$tree_session" --rank 0 -m nccl_calls,nccl_wait
echo "== protonctl tree --job verdict-plugin_delayed -m nccl_wait"
check_output "plugin_delayed: protonctl tree --job" "$work/plugin_delayed.job_tree" \
  "${ctl[@]}" tree --job verdict-plugin_delayed -m nccl_wait
expect_line "plugin_delayed: tree --job ends with the verdict naming rank 1" \
  "$work/plugin_delayed.job_tree" '^rank 1 \(pid [0-9]+, .*\) arrives last at '

finish
