#!/usr/bin/env python3
"""Prints the .chrome_trace files that Triton's Proton and protond.profiler write for the same
program (nested scopes, 3 Triton launches under the hook, a torch op; data="trace"), event by
event, to compare their layouts by eye. Exit code 1 when either file lacks the 3 add_one launches
or the scopes outer and inner: an empty trace is not a layout to compare.

Usage (GPU machine, from the repository root, with a bundle made by scripts/bundle.sh):
    python3 tests/gpu/trace_compare.py
"""
import json, subprocess, sys, os, tempfile
sys.path.insert(0, "bench")
from gpu_common import protond, write_program
PROGRAM = r'''
import sys, torch
if sys.argv[1] == "proton":
    import triton.profiler as proton
else:
    import protond.profiler as proton
x = torch.zeros(1024, device="cuda")
add_one[(1,)](x, 1024, BLOCK=1024); torch.cuda.synchronize()
proton.start(sys.argv[2], data="trace", hook="triton")
with proton.scope("outer"):
    with proton.scope("inner"):
        for _ in range(3):
            add_one[(1,)](x, 1024, BLOCK=1024)
        x.add_(1)
torch.cuda.synchronize()
proton.finalize()
'''
work = tempfile.mkdtemp()
program = write_program(work, PROGRAM)
bundle = os.path.abspath("bundle")
with protond(bundle, work) as socket:
    subprocess.run([sys.executable, program, "proton", "theirs"], check=True, cwd=work)
    env = dict(os.environ, PYTHONPATH=f"{bundle}/python", PROTOND_SOCKET=socket)
    subprocess.run([sys.executable, program, "protond", "ours"], check=True, cwd=work, env=env)
problems = []
for who in ("theirs", "ours"):
    print("==", who, sorted(os.listdir(work)))
    path = os.path.join(work, who + ".chrome_trace")
    data = json.load(open(path))
    print("top keys", sorted(data), {k: v for k, v in data.items() if k != "traceEvents"})
    for e in data["traceEvents"]:
        e = dict(e)
        for k in ("ts", "dur"):
            if k in e: e[k] = round(e[k], 1)
        print(json.dumps(e, sort_keys=True)[:260])
    names = [e.get("name") for e in data["traceEvents"]]
    if names.count("add_one") < 3:
        problems.append(f"{who}: {names.count('add_one')} add_one events, expected 3 at least")
    problems += [f"{who}: no event of scope {scope}" for scope in ("outer", "inner")
                 if scope not in names]
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
