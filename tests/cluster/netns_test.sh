#!/usr/bin/env bash
# Two protond "hosts" in network namespaces of their own, reached over TLS from a third: each host
# (pdn-h1 at 10.77.1.2, pdn-h2 at 10.77.2.2) runs protond --listen with a certificate that names
# its address, and one rank of job 9 with the shim preloaded; the client namespace (pdn-c, linked
# to each host by a veth pair) runs protonctl --hosts '10.77.[1-2].2:7878'. Host 2's processes
# run in a time namespace whose CLOCK_MONOTONIC is 1000 s ahead (where the kernel has them). It
# checks:
#   - start --job, stop --job and tree --job over both hosts: one tree with both ranks;
#   - job --job 10 over both hosts, a job of two ranks (one per host, rank 1 10 ms late at each of
#     its NCCL calls, made through the shim's NCCL profiler plugin): host 2's clock offset is
#     estimated (-1000 s) and stated, and the report names rank 1 about 10 ms late;
#   - a wrong token, an expired token and a client without TLS are refused, each with its message;
#   - with one host's daemon stopped mid-way, tree --job names it and shows the other's rank.
# Needs root and iproute2 (ip netns); exits 77 (skipped, with a message) without them.
# PROTOND_BIN_DIR is the build's bin folder (ctest sets it).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PROTOND_BIN_DIR:-$repo/build/bin}

skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}
fail() {
  echo "FAILED: $*" >&2
  for log in "$tmp"/*.log; do echo "== $log" >&2; tail -n 20 "$log" >&2; done
  exit 1
}

[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "ip is not installed (apt-get install iproute2)"
command -v openssl >/dev/null || skip "openssl is not installed"
# Names of our own, with this run's pid: two runs at once do not meet.
suffix=$$
ns_c=pdn-c-$suffix
ns=(pdn-h1-$suffix pdn-h2-$suffix)
ip netns add "$ns_c" 2>/dev/null || skip "ip netns add failed: no network namespaces here"

tmp=$(mktemp -d /tmp/protond-netns.XXXXXX)
pids=()
nccl_pids=()
teardown() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for name in "$ns_c" "${ns[@]}"; do ip netns del "$name" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap teardown EXIT

# The client's link to host i is 10.77.i.1 <-> 10.77.i.2.
ip netns exec "$ns_c" ip link set lo up
for i in 1 2; do
  host=${ns[i - 1]}
  ip netns add "$host"
  ip link add "pdc$i-$suffix" netns "$ns_c" type veth peer name "pdh$i-$suffix" netns "$host"
  ip netns exec "$ns_c" ip addr add "10.77.$i.1/24" dev "pdc$i-$suffix"
  ip netns exec "$ns_c" ip link set "pdc$i-$suffix" up
  ip netns exec "$host" ip addr add "10.77.$i.2/24" dev "pdh$i-$suffix"
  ip netns exec "$host" ip link set "pdh$i-$suffix" up
  ip netns exec "$host" ip link set lo up
done

# One self-signed certificate naming both hosts' addresses: the client's --tls-ca.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -subj /CN=protond-test \
  -addext "subjectAltName=IP:10.77.1.2,IP:10.77.2.2" 2>/dev/null
token=netns-token-0123456789abcdef
printf '%s root\nexpired-token-0123456789abcdef root expires=2020-01-01T00:00:00Z\n' "$token" \
  >"$tmp/tokens"
echo "$token" >"$tmp/token"
echo "expired-token-0123456789abcdef" >"$tmp/expired"
echo "wrong-token-0123456789abcdef" >"$tmp/wrong"
chmod 600 "$tmp/tokens" "$tmp/token" "$tmp/expired" "$tmp/wrong"

# Host 2's clock: a time namespace held by a sleeping process, which its processes enter.
clock_ahead=
if unshare --time --monotonic 1000 --fork true 2>/dev/null; then
  unshare --time --monotonic 1000 --fork --kill-child sleep infinity &
  pids+=($!)
  for _ in $(seq 100); do
    time_holder=$(pgrep -P "$!" || true)
    [ -n "$time_holder" ] && break
    sleep 0.05
  done
  [ -n "$time_holder" ] || fail "the time namespace's process did not start"
  pids+=("$time_holder")  # unshare blocks SIGTERM: its child's end ends it
  clock_ahead=1
else
  echo "SKIPPED in part: no time namespaces here (unshare --time); host 2's clock is not shifted"
fi
# Starts a command in the background on host i: in its network namespace, and for host 2 in its
# time namespace. Its pid (ip and nsenter exec it) is $started, and joins the teardown's.
start_on_host() {
  local i=$1
  shift
  local enter=(ip netns exec "${ns[i - 1]}")
  [ "$i" -eq 2 ] && [ -n "$clock_ahead" ] && enter+=(nsenter --time --target "$time_holder")
  "${enter[@]}" "$@" &
  started=$!
  pids+=("$started")
}

daemon_pids=()
for i in 1 2; do
  start_on_host "$i" "$bin/protond" --socket "$tmp/h$i.sock" --state-dir "$tmp/h$i" \
    --listen "10.77.$i.2:7878" --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem" \
    --tokens "$tmp/tokens" 2>"$tmp/protond-h$i.log"
  daemon_pids+=("$started")
done
for i in 1 2; do
  for _ in $(seq 100); do [ -S "$tmp/h$i.sock" ] && break; sleep 0.05; done
  [ -S "$tmp/h$i.sock" ] || fail "protond of host $i did not start"
done
# Rank i-1 of job 9 on host i, idle until profiled.
for i in 1 2; do
  start_on_host "$i" env LD_PRELOAD="$bin/libprotond_shim.so" \
    PROTOND_SOCKET="$tmp/h$i.sock" SLURM_JOB_ID=9 RANK=$((i - 1)) \
    "$bin/sample_workload" --steps 1000 --step-ms 10 >"$tmp/rank$i.log" 2>&1
done

ctl() {
  ip netns exec "$ns_c" "$bin/protonctl" --hosts '10.77.[1-2].2:7878' --token-file "$tmp/token" \
    --tls-ca "$tmp/cert.pem" "$@"
}
for _ in $(seq 100); do
  [ "$(ctl processes 2>/dev/null | grep -c sample_workload)" -eq 2 ] && break
  sleep 0.05
done
[ "$(ctl processes | grep -c sample_workload)" -eq 2 ] || fail "the two ranks did not register"

echo "== start, stop and tree of job 9 on both hosts, over TLS from a third namespace"
ctl start --job 9 --name netns | tee "$tmp/start.out"
[ "$(grep -c 'session 1 (netns): recording 1 of 1 process' "$tmp/start.out")" -eq 2 ] ||
  fail "start did not record one rank on each host"
sleep 0.5
ctl stop --job 9 >/dev/null || fail "stop --job 9 failed"
ctl tree --job 9 -m count | tee "$tmp/tree.out"
grep -q 'job 9: 2 ranks (0@10.77.1.2:7878, 1@10.77.2.2:7878); count per rank' "$tmp/tree.out" ||
  fail "the tree does not name both ranks"
grep -qE ' 2 +└─ step$' "$tmp/tree.out" || fail "the step frame does not have both ranks"

echo "== job 10, one rank on each host, rank 1 10 ms late: job --job 10 over both hosts"
# Both ranks' first call is 500 ms after this wall clock second: their CLOCK_MONOTONIC differ.
start_s=$(($(date +%s) + 3))
for i in 1 2; do
  start_on_host "$i" env PROTOND_SOCKET="$tmp/h$i.sock" SLURM_JOB_ID=10 RANK=$((i - 1)) \
    "$bin/nccl_plugin_workload" 10 30 "$start_s" >"$tmp/nccl-rank$i.log" 2>&1
  nccl_pids+=("$started")
done
for _ in $(seq 100); do
  [ "$(ctl processes 2>/dev/null | grep -c nccl_plugin_workload)" -eq 2 ] && break
  sleep 0.05
done
ctl start --job 10 --name nccl >/dev/null || fail "start --job 10 failed"
for pid in "${nccl_pids[@]}"; do wait "$pid" || fail "a rank of job 10 failed"; done
# The sessions stop once their rank has exited and been drained: --follow ends then, its last
# report (into a pipe, after the others) headed "job 10, stopped".
timeout 60 ip netns exec "$ns_c" "$bin/protonctl" --hosts '10.77.[1-2].2:7878' \
  --token-file "$tmp/token" --tls-ca "$tmp/cert.pem" job --job 10 --follow >"$tmp/follow.out" ||
  fail "job --job 10 --follow failed: $(cat "$tmp/follow.out")"
sed -n '/^job 10, stopped$/,$p' "$tmp/follow.out" | tee "$tmp/job.out"
offset='[-+]0\.[0-9]{3}'
[ -n "$clock_ahead" ] && offset='-(999999|1000000)\.[0-9]{3}'
grep -qE "^clock offsets: 10\.77\.2\.2:7878 $offset ms ± [0-9.]+ ms against 10\.77\.1\.2:7878$" \
  "$tmp/job.out" || fail "the clock offset of host 2 is not stated as expected"
late=$(grep -oE '^rank 1 \(pid [0-9]+, 10\.77\.2\.2:7878\) arrives last at (2[5-9]|30) of 30 all_reduce calls, on average [0-9.]+ ms' "$tmp/job.out" | grep -oE '[0-9.]+ ms$') ||
  fail "the report does not name rank 1 on host 2 late"
awk -v ms="${late% ms}" 'BEGIN { exit !(ms >= 8 && ms <= 12) }' ||
  fail "rank 1 is $late late, not about 10 ms"

echo "== refused: a wrong token, an expired token, no TLS"
expect_refused() {
  local what=$1 message=$2
  shift 2
  if out=$(ip netns exec "$ns_c" "$bin/protonctl" --host 10.77.1.2:7878 "$@" sessions 2>&1); then
    fail "$what was not refused"
  fi
  case $out in *"$message"*) echo "$what: $out" ;; *) fail "$what: '$out' lacks '$message'" ;; esac
}
expect_refused "wrong token" "this token is not accepted here" --token-file "$tmp/wrong" \
  --tls-ca "$tmp/cert.pem"
expect_refused "expired token" "this token expired at 2020-01-01T00:00:00+00:00" \
  --token-file "$tmp/expired" --tls-ca "$tmp/cert.pem"
expect_refused "no TLS" "does not answer" --token-file "$tmp/token" --insecure
grep -q "$token" "$tmp"/protond-h*.log && fail "a token is in a daemon's log"

echo "== host 2's daemon stopped: tree --job names it and shows host 1's rank"
kill "${daemon_pids[1]}"
wait "${daemon_pids[1]}" 2>/dev/null || true
if ctl tree --job 9 -m count >"$tmp/partial.out" 2>"$tmp/partial.err"; then
  fail "tree --job exited 0 with a host down"
fi
cat "$tmp/partial.out" "$tmp/partial.err"
grep -q 'job 9: 1 rank (0@10.77.1.2:7878)' "$tmp/partial.out" || fail "host 1's rank is missing"
grep -q 'left out 10.77.2.2:7878' "$tmp/partial.err" || fail "host 2 is not named"
echo PASSED
