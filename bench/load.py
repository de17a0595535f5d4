#!/usr/bin/env python3
"""protond under load: many registered processes with many threads, recording into concurrent
sessions for a long time. Reports what was written, stored and dropped, the daemon's memory
over the run, and how long `protonctl sessions` and `protonctl tree` take meanwhile.

A private protond is started; PROCESSES copies of bench/load_workload (THREADS threads each,
RATE scope pairs per second per thread, 0 for as fast as the shim takes them) run with the shim
preloaded, and once all have registered, SESSIONS sessions are attached to them in equal groups
(`protonctl start --pid ... --duration SECONDS`; a start that fails is printed and the run goes
on). Every 5 s the daemon's resident memory is sampled (its own, and the pages of the programs'
rings it has read); every QUERY_EVERY seconds (default 5) both commands are timed, and
`protonctl --version`, which asks the daemon nothing: the cost of starting protonctl itself. With
--wide-tree, bench/wide_tree_workload first records a 10,222-node tree under `protonctl run` and
lives on, and `protonctl tree` of that running session is timed too. Meanwhile
bench/query_latency asks the daemon the same (ListSessions, ViewTree) over one connection kept
open: the daemon's part, without the cost of starting protonctl. Loss is what the shim counted as dropped (exact: see
docs/reliability.md); the goal is zero.

Usage: bench/load.py BIN_DIR [--processes 64] [--threads 8] [--sessions 16] [--seconds 600]
                     [--rate 0] [--lane-bytes N] [--query-every 5] [--wide-tree]
Exit code 1 when a command fails or records were dropped.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

SAMPLE_EVERY_S = 5


def start_daemon(bin_dir, work, extra_args=()):
    """A private protond in `work` (its log in work/protond.log), and its socket."""
    socket = os.path.join(work, "protond.sock")
    daemon = subprocess.Popen([os.path.join(bin_dir, "protond"), "--socket", socket,
                               "--state-dir", os.path.join(work, "state"), *extra_args],
                              stderr=open(os.path.join(work, "protond.log"), "w"))
    for _ in range(200):
        if os.path.exists(socket):
            return daemon, socket
        time.sleep(0.05)
    daemon.kill()
    sys.exit("protond did not start")


def resident_mb(pid):
    """(its own memory, the programs' rings it has read) in MB: RssAnon and RssShmem."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            fields[name] = int(value.split()[0]) / 1024 if value.strip().endswith("kB") else 0
    return fields.get("RssAnon", 0.0), fields.get("RssShmem", 0.0)


def timed_ms(argv):
    begin = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {done.stderr}")
    return (time.perf_counter() - begin) * 1e3


def registered_pids(ctl):
    """The pids `protonctl processes` lists; none while the daemon does not answer yet."""
    listing = subprocess.run(ctl + ["processes"], capture_output=True, text=True)
    if listing.returncode != 0:
        return set()
    return {int(line.split()[0]) for line in listing.stdout.splitlines()[1:] if line.strip()}


def sessions_table(ctl):
    """(id, records, dropped) of each session, from `protonctl sessions`."""
    listing = subprocess.run(ctl + ["sessions"], capture_output=True, text=True, check=True)
    rows = []
    for line in listing.stdout.splitlines()[1:]:
        fields = line.split()
        rows.append((int(fields[0]), int(fields[-2]), int(fields[-1])))
    return rows


def summary(values):
    values = sorted(values)
    def at(share):
        return values[int(share * (len(values) - 1))]
    return (f"median {statistics.median(values):7.1f}  p90 {at(0.9):7.1f}  p99 {at(0.99):7.1f}"
            f"  max {values[-1]:7.1f}  ({len(values)} samples)")


def start_wide_tree(ctl, bin_dir, hold_s):
    """`protonctl run` of wide_tree_workload, once it has recorded its tree; and its session id."""
    wide = subprocess.Popen(ctl + ["run", "--name", "wide", "--",
                                   os.path.join(bin_dir, "wide_tree_workload"), "20", "10", "50",
                                   "2", str(hold_s)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in wide.stdout:
        if "wide_tree_workload:" in line:
            break
    else:
        sys.exit(f"wide_tree_workload ended before its tree was recorded (exit {wide.wait()})")
    listing = subprocess.run(ctl + ["sessions"], capture_output=True, text=True, check=True)
    for line in listing.stdout.splitlines()[1:]:
        if line.split()[1:2] == ["wide"]:
            return wide, int(line.split()[0])
    sys.exit(f"no session named wide in:\n{listing.stdout}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dir")
    parser.add_argument("--processes", type=int, default=64)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--rate", type=int, default=0)
    parser.add_argument("--lane-bytes", type=int, default=0, help="PROTOND_LANE_BYTES (0: default)")
    parser.add_argument("--query-every", type=float, default=SAMPLE_EVERY_S)
    parser.add_argument("--wide-tree", action="store_true")
    args = parser.parse_args()
    bin_dir = os.path.abspath(args.bin_dir)
    protonctl = os.path.join(bin_dir, "protonctl")
    with tempfile.TemporaryDirectory() as work:
        daemon, socket = start_daemon(bin_dir, work)
        ctl = [protonctl, "--socket", socket]
        env = dict(os.environ, LD_PRELOAD=os.path.join(bin_dir, "libprotond_shim.so"),
                   PROTOND_SOCKET=socket, PROTOND_AUTOSTART="0")
        if args.lane_bytes:
            env["PROTOND_LANE_BYTES"] = str(args.lane_bytes)
        # The programs outlive the sessions, however long attaching takes, and are ended with
        # SIGTERM once the sessions are over.
        wide, wide_session = (start_wide_tree(ctl, bin_dir, args.seconds + 3600)
                              if args.wide_tree else (None, None))
        workloads = [subprocess.Popen([os.path.join(bin_dir, "load_workload"), str(args.threads),
                                       str(args.seconds + 3600), str(args.rate)],
                                      env=env, stdout=subprocess.PIPE, text=True)
                     for _ in range(args.processes)]
        pids = [w.pid for w in workloads]
        failed_starts = 0
        attach_ms = []
        try:
            deadline = time.time() + 30
            while not set(pids) <= registered_pids(ctl):
                if time.time() > deadline:
                    sys.exit("the workloads did not all register within 30 s")
                time.sleep(0.2)
            for s in range(args.sessions):
                group = pids[s::args.sessions]
                command = ctl + ["start", "--name", f"load{s}", "--duration", f"{args.seconds}s"]
                for pid in group:
                    command += ["--pid", str(pid)]
                attach_began = time.perf_counter()
                started = subprocess.run(command, capture_output=True, text=True)
                attach_ms.append((time.perf_counter() - attach_began) * 1e3)
                if started.returncode != 0:  # said, and the run goes on with the others
                    print(f"session load{s}: {started.stdout}{started.stderr}".strip())
                    failed_starts += 1
            began = time.time()
            started = [session_id for session_id, _, _ in sessions_table(ctl)
                       if session_id != wide_session]
            if not started:
                sys.exit("no session could be started")
            # The daemon's part, over one open connection, beside protonctl's whole cost.
            rpc = subprocess.Popen(
                [os.path.join(bin_dir, "query_latency"), socket, str(args.seconds),
                 str(int(args.query_every * 1000)), str(wide_session or 0)]
                + [str(session_id) for session_id in started],
                stdout=subprocess.PIPE, text=True)
            memory, sessions_ms, tree_ms, wide_ms, version_ms = [], [], [], [], []
            next_memory = time.time()
            while time.time() - began < args.seconds + 2:
                time.sleep(args.query_every)
                if time.time() >= next_memory:
                    memory.append(resident_mb(daemon.pid))
                    next_memory += SAMPLE_EVERY_S
                version_ms.append(timed_ms([protonctl, "--version"]))
                sessions_ms.append(timed_ms(ctl + ["sessions"]))
                tree_ms.append(timed_ms(ctl + ["tree", str(started[len(tree_ms) % len(started)])]))
                if wide:
                    wide_ms.append(timed_ms(ctl + ["tree", str(wide_session)]))
            rpc_summary, _ = rpc.communicate()
            rows = [row for row in sessions_table(ctl) if row[0] != wide_session]
        finally:
            pairs = 0
            if wide:
                wide.terminate()
                wide.communicate()
            for workload in workloads:
                workload.terminate()
            for workload in workloads:
                out, _ = workload.communicate()
                pairs += int(re.search(r"(\d+) scope pairs", out).group(1))
            daemon.terminate()
            daemon.wait()
        if failed_starts:  # what the daemon said about its connections meanwhile
            with open(os.path.join(work, "protond.log")) as log:
                print("".join(log.readlines()[-20:]), end="")
    stored = sum(records for _, records, _ in rows)
    dropped = sum(dropped for _, _, dropped in rows)
    print(f"{args.processes} processes x {args.threads} threads, {args.sessions} sessions, "
          f"{args.seconds} s, rate {args.rate or 'unlimited'} pairs/s/thread, "
          f"lane bytes {args.lane_bytes or 'default'}")
    print(f"scope pairs entered (recorded or not): {pairs}")
    print(f"records stored: {stored} ({stored / args.seconds / 1e6:.2f} M/s), "
          f"dropped: {dropped} ({100 * dropped / max(1, stored + dropped):.2f}%)")
    for index, what in ((0, "its own (RssAnon)"), (1, "rings read (RssShmem)")):
        values = [sample[index] for sample in memory]
        print(f"daemon MB, {what}: first {values[0]:.0f}, max {max(values):.0f}, "
              f"last {values[-1]:.0f} ({len(values)} samples, every {SAMPLE_EVERY_S} s)")
    print(f"protonctl start ms:    {summary(attach_ms)} ({failed_starts} failed)")
    print(f"protonctl --version ms (starting protonctl, no daemon call): {summary(version_ms)}")
    print(f"protonctl sessions ms: {summary(sessions_ms)}")
    print(f"protonctl tree ms:     {summary(tree_ms)}")
    if wide_ms:
        print(f"protonctl tree ms, running session of 10,222 nodes: {summary(wide_ms)}")
    print(rpc_summary, end="")
    return 1 if dropped or rpc.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
