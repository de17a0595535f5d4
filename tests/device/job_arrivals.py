"""Compares `protonctl job`'s verdict with the job's own clock (issue 32's GPU check).

tests/gpu/ddp_train.py, with PROTOND_TEST_ARRIVALS_DIR, writes for each rank the CLOCK_MONOTONIC
time at which DDP handed each gradient bucket to its all-reduce. All ranks of the check run on one
host, so those times share a clock, and they say which rank reached each call last, and by how
much, without protond. A job that is not balanced by itself (the tiny model's steps are bound by
the CPU's kernel launches, and on some runs one rank's launches run a few ms behind each step)
has a late rank that the verdict should name; the check's "no delay: no rank named" assumes a
balanced job, and this script says whether the job was one.

Usage: job_arrivals.py ARRIVALS_DIR JOB_REPORT|-
Prints the job's own clock (and only that, with "-": a job run without protond) ("job clock: ...", and "job clock: rank R is clearly late" when one
is, as defined below) and exits 1, with the reason, when the verdict in
JOB_REPORT (`protonctl job`'s output) disagrees with it:
  - a rank named late must be the rank the job's clock has last most often, and its lateness
    ("on average X after the first", over the calls where it came last) within 20% (or 0.5 ms) of
    the job clock's mean over the calls where that rank came last;
  - a rank must not be named in a job the clock has balanced: no rank last at 60% of the calls
    or more with a median lateness of 0.5 ms or more;
  - "no rank is late" must not meet a job whose clock has one rank clearly late: last at 90% of
    the calls or more, with a median lateness of 2 ms or more.
Between the two (a rank last at 60-90% of the calls, or by 0.5-2 ms) either verdict is accepted:
the verdict's own thresholds (docs/jobs.md) sit there, and host and GPU arrivals differ by the
GPU's queue.
"""
import os
import re
import statistics
import sys

CLEARLY_LATE_SHARE = 0.9
CLEARLY_LATE_MEDIAN_MS = 2.0
BALANCED_SHARE = 0.6
BALANCED_MEDIAN_MS = 0.5
LATENESS_TOLERANCE = 0.2
LATENESS_FLOOR_MS = 0.5
UNITS_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def read_arrivals(folder):
    ranks = {}
    for name in sorted(os.listdir(folder)):
        match = re.fullmatch(r"rank(\d+)\.txt", name)
        if match:
            with open(os.path.join(folder, name)) as f:
                ranks[int(match.group(1))] = [int(line) for line in f if line.strip()]
    if len(ranks) < 2:
        sys.exit(f"job_arrivals: {folder} holds {len(ranks)} ranks' arrivals; two or more needed")
    counts = {rank: len(times) for rank, times in ranks.items()}
    if len(set(counts.values())) != 1:
        sys.exit(f"job_arrivals: the ranks reached different numbers of all-reduces: {counts}")
    return ranks


def step_start_spread(folder, ranks):
    """The median over steps of (rank's step start - the first rank's), in ms, per rank, from
    DIR/rankR.steps; None when a rank has none."""
    starts = {}
    for rank in ranks:
        path = os.path.join(folder, f"rank{rank}.steps")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            starts[rank] = [int(line) for line in f if line.strip()]
    steps = min(len(times) for times in starts.values())
    return {rank: statistics.median((starts[rank][i] - min(s[i] for s in starts.values())) / 1e6
                                    for i in range(steps))
            for rank in starts}


def job_clock(ranks):
    """(late rank, its share of last arrivals, its mean lateness over those (ms), its median
    lateness over all calls (ms), calls)."""
    order = sorted(ranks)
    calls = len(ranks[order[0]])
    last_count = {rank: 0 for rank in order}
    last_lateness = {rank: [] for rank in order}
    lateness = {rank: [] for rank in order}
    for i in range(calls):
        times = {rank: ranks[rank][i] for rank in order}
        first = min(times.values())
        last = max(order, key=lambda rank: (times[rank], -rank))
        last_count[last] += 1
        last_lateness[last].append((times[last] - first) / 1e6)
        for rank in order:
            lateness[rank].append((times[rank] - first) / 1e6)
    late = max(order, key=lambda rank: (last_count[rank], -rank))
    mean = statistics.mean(last_lateness[late]) if last_lateness[late] else 0.0
    return late, last_count[late] / calls, mean, statistics.median(lateness[late]), calls


def read_verdict(report):
    with open(report) as f:
        text = f.read()
    named = re.search(r"^rank (\d+) \(pid .*? on average ([0-9.]+) (ns|us|ms|s) after the first",
                      text, re.M)
    if named:
        return int(named.group(1)), float(named.group(2)) * UNITS_MS[named.group(3)]
    if re.search(r"^no rank is late: ", text, re.M):
        return None, None
    sys.exit(f"job_arrivals: {report} has no verdict line")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ranks = read_arrivals(sys.argv[1])
    late, share, mean_ms, median_ms, calls = job_clock(ranks)
    print(f"job clock: rank {late} last at {round(share * calls)} of {calls} all-reduces "
          f"({share:.0%}), on average {mean_ms:.2f} ms after the first at those, median "
          f"{median_ms:.2f} ms over all")
    spread = step_start_spread(sys.argv[1], ranks)
    if spread is not None:
        print("job clock: steps began, median after the first rank's: " +
              ", ".join(f"rank {rank} {ms:.2f} ms" for rank, ms in sorted(spread.items())))
    clearly_late = share >= CLEARLY_LATE_SHARE and median_ms >= CLEARLY_LATE_MEDIAN_MS
    balanced = share < BALANCED_SHARE or median_ms < BALANCED_MEDIAN_MS
    if clearly_late:
        print(f"job clock: rank {late} is clearly late")
    elif balanced:
        print("job clock: the job is balanced")
    if sys.argv[2] == "-":
        return
    named, lateness_ms = read_verdict(sys.argv[2])
    if named is None:
        if clearly_late:
            sys.exit(f"job_arrivals: the verdict names no rank, but the job's clock has rank "
                     f"{late} clearly late")
        print("agrees: no rank named, and the job's clock has none clearly late")
        return
    if balanced:
        sys.exit(f"job_arrivals: the verdict names rank {named} in a job the clock has balanced")
    if named != late:
        sys.exit(f"job_arrivals: the verdict names rank {named}, the job's clock rank {late}")
    allowed = max(LATENESS_TOLERANCE * mean_ms, LATENESS_FLOOR_MS)
    if abs(lateness_ms - mean_ms) > allowed:
        sys.exit(f"job_arrivals: the verdict's lateness {lateness_ms:.2f} ms is not within "
                 f"{allowed:.2f} ms of the job clock's {mean_ms:.2f} ms")
    print(f"agrees: rank {named}, {lateness_ms:.2f} ms against the job clock's {mean_ms:.2f} ms")


if __name__ == "__main__":
    main()
