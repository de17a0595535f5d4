#!/usr/bin/env python3
"""On demand, on a GPU: a PyTorch loop started with the shim loaded and no session, profiled three
times for 2 s each from protonctl while it runs. Checks that each session holds only the kernels
of its window (their count lies between the launches made wholly inside the window and those
that touched it), that the program's result is unchanged, and measures:

- start latency: when the first kernel recorded ran, against when `protonctl start` returned
  (negative: recording had begun before the command returned);
- stop latency: how long before `protonctl stop` returned the last stored kernel ended, and that
  nothing more arrives for the session afterwards;
- idle cost: context switches of an idle CUDA process with and without the shim (the shim's only
  thread is blocked in one stream read), and tiny-op loops in alternating processes with and
  without the shim loaded (no session).

Usage (on the GPU machine, from a bundle made by scripts/bundle.sh):
    bench/on_demand.py BUNDLE_DIR [IDLE_PAIRS]
Exit code 0 when every check holds; the measurements are printed either way.
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_common import protond  # noqa: E402

WINDOW_S = 2.0
BATCH = 100  # launches between two time stamps

LOOP = r'''
import json, sys, time, torch
x = torch.zeros(1 << 16, device="cuda")
torch.cuda.synchronize()
print("ready", flush=True)
deadline = time.monotonic() + float(sys.argv[1])
batches = []  # (monotonic ns before, after) each batch of launches
while time.monotonic() < deadline:
    before = time.monotonic_ns()
    for _ in range(BATCH):
        x.add_(1.0)
    batches.append((before, time.monotonic_ns()))
    time.sleep(0.001)
torch.cuda.synchronize()
print(json.dumps({"result": float(x[0]), "launches": BATCH * len(batches), "batches": batches}))
'''.replace("BATCH", str(BATCH))

IDLE = r'''
import sys, time, torch
torch.zeros(1, device="cuda")
torch.cuda.synchronize()
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
'''

TINY = r'''
import time, torch
x = torch.zeros(1 << 10, device="cuda")
for _ in range(2000):
    x.add_(1.0)
torch.cuda.synchronize()
begin = time.perf_counter()
for _ in range(20000):
    x.add_(1.0)
torch.cuda.synchronize()
print(time.perf_counter() - begin)
'''


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def shim_env(bundle, socket):
    return dict(os.environ, LD_PRELOAD=f"{bundle}/bin/libprotond_shim.so", PROTOND_SOCKET=socket)


def protonctl(bundle, socket, *args):
    return subprocess.run([f"{bundle}/bin/protonctl", "--socket", socket, *args],
                          capture_output=True, text=True)


def wait_registered(bundle, socket, pid):
    for _ in range(100):
        listed = protonctl(bundle, socket, "processes").stdout.split()
        if str(pid) in listed:
            return True
        time.sleep(0.05)
    return False


def context_switches(pid):
    """{thread id: (name, voluntary + involuntary context switches)} of `pid`'s threads."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        switches = 0
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            threads[tid] = (f.read().strip(), switches)
    return threads


def idle_wakeups(idle, env, seconds=10):
    """Context switches per second of an idle CUDA process after it settled, its thread count,
    and the busiest threads ("name: switches/s")."""
    process = subprocess.Popen([sys.executable, idle, str(seconds + 8)], env=env,
                               stdout=subprocess.PIPE, text=True)
    process.stdout.readline()
    time.sleep(3)
    before = context_switches(process.pid)
    time.sleep(seconds)
    after = context_switches(process.pid)
    process.kill()
    process.wait()
    rates = sorted(((after[t][1] - before.get(t, (None, 0))[1]) / seconds, after[t][0])
                   for t in after)[::-1]
    busiest = ", ".join(f"{name}: {rate:.1f}" for rate, name in rates[:5] if rate > 0)
    return sum(rate for rate, _ in rates), len(after), busiest


def window_events(store, session):
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    count, first, last = db.execute(
        "SELECT count(*), min(start_ns), max(end_ns) FROM gpu_events WHERE session_id = ? AND "
        "kind = 10", (session,)).fetchone()
    db.close()
    return count, first, last


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    work = tempfile.mkdtemp()
    loop = write(work, "loop.py", LOOP)
    problems = []
    with protond(bundle, work) as socket:
        env = shim_env(bundle, socket)
        program = subprocess.Popen([sys.executable, loop, "18"], env=env, stdout=subprocess.PIPE,
                                   text=True)
        program.stdout.readline()
        if not wait_registered(bundle, socket, program.pid):
            problems.append("the loop did not register")
        time.sleep(1)
        windows = []
        for i in range(1, 4):
            t0 = time.monotonic_ns()
            start = protonctl(bundle, socket, "start", "--pid", str(program.pid), "--data",
                              "trace", "--name", f"window{i}")
            t1 = time.monotonic_ns()
            print(start.stdout.strip(), start.stderr.strip())
            time.sleep(WINDOW_S)
            t2 = time.monotonic_ns()
            stop = protonctl(bundle, socket, "stop", "--session", str(i))
            t3 = time.monotonic_ns()
            print(stop.stdout.strip(), stop.stderr.strip())
            windows.append((i, t0, t1, t2, t3))
            time.sleep(0.8)
        # The same with tree sessions (no events kept): how long start and stop take.
        tree_times = []
        for i in range(4, 7):
            t0 = time.monotonic_ns()
            protonctl(bundle, socket, "start", "--pid", str(program.pid), "--name", f"tree{i}")
            t1 = time.monotonic_ns()
            time.sleep(WINDOW_S / 2)
            t2 = time.monotonic_ns()
            protonctl(bundle, socket, "stop", "--session", str(i))
            tree_times.append(((t1 - t0) / 1e6, (time.monotonic_ns() - t2) / 1e6))
            time.sleep(0.3)
        out = json.loads(program.stdout.read().strip().splitlines()[-1])
        program.wait()
        time.sleep(0.5)  # anything late would have arrived by now
        store = f"{work}/state/protond.db"
        if out["result"] != out["launches"]:
            problems.append(f"result {out['result']} != {out['launches']} launches")
        print(f"loop: {out['launches']} launches, result {out['result']}")
        starts, stops = [], []
        for i, t0, t1, t2, t3 in windows:
            count, first, last = window_events(store, i)
            inside = sum(BATCH for b, a in out["batches"] if b >= t1 and a <= t2)
            touching = sum(BATCH for b, a in out["batches"] if a >= t0 and b <= t3)
            starts.append((first - t1) / 1e6)
            stops.append((t3 - last) / 1e6)
            print(f"window {i}: {count} kernels recorded; launched wholly inside {inside}, "
                  f"touching {touching}; start took {(t1 - t0) / 1e6:.1f} ms, first kernel "
                  f"{(first - t1) / 1e6:+.1f} ms after it returned; stop took "
                  f"{(t3 - t2) / 1e6:.1f} ms, last kernel ended {(t3 - last) / 1e6:.1f} ms "
                  f"before it returned")
            if not inside <= count <= touching:
                problems.append(f"window {i}: {count} kernels, not within [{inside}, {touching}]")
            tree = protonctl(bundle, socket, "tree", str(i), "-m", "count,time/ms")
            print(tree.stdout)
        print("tree sessions, protonctl start and stop wall times, ms: " +
              ", ".join(f"{a:.1f}/{b:.1f}" for a, b in tree_times))
        print(f"start: first kernel vs start returned, ms: {[round(s, 1) for s in starts]}")
        print(f"stop: stop returned after the last kernel ended, ms: {[round(s, 1) for s in stops]}")

        idle = write(work, "idle.py", IDLE)
        plain_rate, plain_threads, plain_busiest = idle_wakeups(idle, os.environ)
        shim_rate, shim_threads, shim_busiest = idle_wakeups(idle, env)
        print(f"idle CUDA process, context switches/s (all threads): no shim {plain_rate:.1f} "
              f"({plain_threads} threads; {plain_busiest}), shim loaded and idle "
              f"{shim_rate:.1f} ({shim_threads} threads; {shim_busiest})")

        tiny = write(work, "tiny.py", TINY)
        ratios = []
        for pair in range(pairs):
            seconds = {}
            for variant in (("plain", "shim") if pair % 2 == 0 else ("shim", "plain")):
                run = subprocess.run([sys.executable, tiny], capture_output=True, text=True,
                                     env=env if variant == "shim" else os.environ)
                seconds[variant] = float(run.stdout.strip())
            ratios.append(seconds["shim"] / seconds["plain"])
        print(f"20k tiny add_, shim idle / no shim, {pairs} process pairs: median "
              f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]")
    for problem in problems:
        print("PROBLEM:", problem)
    print("on-demand checks hold" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
