#!/usr/bin/env python3
"""The web page's Kernels and Stalls panes on a real PC-sampled session (GPU machine): a protond
records tests/gpu/stall_workload.cu under `protonctl run --mode pcsampling:interval=1024`,
`protonctl ui` serves the page, and the answers of /api/top and /api/stalls?sass=1 are compared
with what `protonctl top`, `top --stalls` and `tree -f sass` print for the same session: every
kernel row's and stalled line's cells in one printed row, in order, and every SASS instruction
with its sample count on a line of the tree. Exit code 0 when every check passes.

Usage (from a bundle made by scripts/bundle.sh, which carries the page's files):
    tests/device/ui_panes_check.py BUNDLE_DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

problems = []


def check(ok, what):
    """Prints only what failed: a session has hundreds of instructions."""
    if not ok:
        print("FAIL  " + what)
        problems.append(what)
    return ok


def cells_in_order(cells, line):
    position = 0
    for cell in cells:
        found = line.find(cell.strip(), position)
        if found < 0:
            return False
        position = found + len(cell.strip())
    return True


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bundle")
    work = tempfile.mkdtemp()
    socket = os.path.join(work, "protond.sock")
    ctl = [os.path.join(bundle, "bin", "protonctl"), "--socket", socket]
    daemon = subprocess.Popen([os.path.join(bundle, "bin", "protond"), "--socket", socket,
                               "--state-dir", os.path.join(work, "state")],
                              stderr=open(os.path.join(work, "protond.log"), "w"))
    ui = None
    try:
        for _ in range(100):
            if subprocess.run(ctl + ["sessions"], capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        run = subprocess.run(ctl + ["run", "--name", "stalls", "--mode", "pcsampling:interval=1024",
                                    "--", os.path.join(bundle, "bin", "stall_workload"), "2"],
                             capture_output=True, text=True)
        check(run.returncode == 0, f"stall_workload under pcsampling ({run.stderr.strip()[-200:]})")
        session = re.search(r"session (\d+)", run.stderr + run.stdout).group(1)
        ui = subprocess.Popen(ctl + ["ui", "--port", "0"], stdout=subprocess.PIPE, text=True)
        address = ui.stdout.readline().strip().split(" ", 2)[-1]
        token = address.split("token=", 1)[1]
        base = address.split("/?", 1)[0]

        def api(path):
            request = urllib.request.Request(base + path,
                                             headers={"Authorization": "Bearer " + token})
            with urllib.request.urlopen(request, timeout=60) as answer:
                return json.load(answer)

        top = api(f"/api/top?session={session}")
        printed_top = subprocess.run(ctl + ["top", session], capture_output=True,
                                     text=True).stdout.splitlines()
        check(len(top["kernels"]) >= 2, f"/api/top lists the kernels ({len(top['kernels'])})")
        for kernel in top["kernels"]:
            check(any(cells_in_order(kernel["text"], line) for line in printed_top),
                  f"kernel {kernel['name']}: cells {kernel['text']} are a row of protonctl top")
            check(kernel["bound"] is not None or kernel["no_verdict"] is not None,
                  f"kernel {kernel['name']}: a verdict ({kernel['bound']}, "
                  f"{kernel['percent_of_peak']}%) or why none ({kernel['no_verdict']})")
        check(len(top["devices"]) >= 1 and top["devices"][0]["peaks"] != "",
              f"/api/top's devices with their peaks: {top['devices'][:1]}")

        stalls = api(f"/api/stalls?session={session}&sass=1")
        printed_stalls = subprocess.run(ctl + ["top", session, "--stalls"], capture_output=True,
                                        text=True).stdout.splitlines()
        printed_sass = subprocess.run(ctl + ["tree", session, "-f", "sass", "-m", "num_samples"],
                                      capture_output=True, text=True).stdout.splitlines()
        check(len(stalls["lines"]) >= 2, f"/api/stalls lists the lines ({len(stalls['lines'])})")
        instructions = 0
        for line in stalls["lines"]:
            check(any(cells_in_order(line["text"], printed) for printed in printed_stalls),
                  f"line {line['line']}: cells are a row of protonctl top --stalls")
            for instruction in line.get("instructions", []):
                instructions += 1
                found = [p for p in printed_sass
                         if instruction["offset"] in p and instruction["sass"] in p]
                # The same offset and text can be in two kernels (both start with the same
                # prologue): one of the printed lines has this count.
                samples = str(int(instruction["samples"]))
                check(any(p.split()[0] == samples for p in found),
                      f"{instruction['offset']} {instruction['sass']}: "
                      f"{samples} samples, as tree -f sass prints ({found})")
        check(instructions > 0, f"/api/stalls?sass=1 gives SASS instructions ({instructions})")
        for kernel in top["kernels"]:
            print(f"kernel {kernel['name']}: {kernel['bound'] or 'no verdict'}"
                  f" {kernel['percent_of_peak'] or kernel['no_verdict'] or ''}")
        print(f"compared {len(top['kernels'])} kernels, {len(stalls['lines'])} stalled lines and "
              f"{instructions} instructions with protonctl's output")
    finally:
        if ui is not None:
            ui.terminate()
        daemon.terminate()
        daemon.wait()
    print("ui_panes_check:", "PASS" if not problems else f"{len(problems)} failed checks")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
