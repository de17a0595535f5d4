#!/usr/bin/env python3
"""The SVG flame graph of `protonctl export --format svg` in a real browser.

Exports a Hatchet file, adds a script to a copy of the SVG that clicks a frame and the reset
control the way a user would, and loads it in headless Chromium (Debian's `chromium`). The DOM
Chromium dumps must show the graph laid out (a label has a width), the click zoomed (the frame
spans the graph, its child too, a frame outside it hidden, the reset control shown) and the reset
undone it. Exits 77 (CTest: skipped) with a message where chromium is not installed.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIPPED = 77
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "view", "hatchet", "testdata",
                       "h100_proton.hatchet")

# w_triton holds add_one alone; w_mm is outside it. Runs after the graph's own script.
PROBE = """<script><![CDATA[
(function () {
  function frame(name) { return document.querySelector('g.frame[data-name="' + name + '"]'); }
  function width(g) { return Number(g.querySelector('rect').getAttribute('width')); }
  function click(element) { element.dispatchEvent(new MouseEvent('click', {bubbles: true})); }
  var target = frame('w_triton');
  var results = {
    graph_width: Number(document.documentElement.getAttribute('data-graph-width')),
    label_px: frame('ROOT').querySelector('text').getBBox().width,
    before: width(target),
    child_before: width(frame('add_one')),
  };
  click(target.querySelector('rect'));
  results.after = width(target);
  results.child_after = width(frame('add_one'));
  results.outside_display = getComputedStyle(frame('w_mm')).display;
  results.root_is_ancestor = frame('ROOT').classList.contains('ancestor');
  results.reset_display = getComputedStyle(document.getElementById('reset')).display;
  click(document.getElementById('reset'));
  results.after_reset = width(target);
  results.outside_display_after_reset = getComputedStyle(frame('w_mm')).display;
  document.documentElement.setAttribute('data-probe', JSON.stringify(results));
})();
]]></script>
"""


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def export_svg(workdir):
    protonctl = os.path.join(os.environ["PROTOND_BIN_DIR"], "protonctl")
    svg = os.path.join(workdir, "flame.svg")
    subprocess.run([protonctl, "export", FIXTURE, "--format", "svg", "-o", svg], check=True)
    with open(svg, encoding="utf-8") as f:
        return f.read()


def probe(chromium, svg_path, workdir):
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--user-data-dir=" + os.path.join(workdir, "profile"), "--dump-dom",
         "file://" + svg_path],
        check=True, capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'data-probe="([^"]*)"', dom)
    if not found:
        sys.exit("FAIL: the probe did not run; the DOM Chromium dumped:\n" + dom[:2000])
    return json.loads(html.unescape(found.group(1)))


def check(results):
    full = results["graph_width"] - 0.5  # a frame's rect is half a pixel narrower than its share
    expected = {
        "after": full,
        "child_after": full,
        "outside_display": "none",
        "root_is_ancestor": True,
        "after_reset": results["before"],
        "outside_display_after_reset": "inline",
    }
    failures = [f"{key}: {results[key]!r}, expected {value!r}"
                for key, value in expected.items() if results[key] != value]
    if results["reset_display"] == "none":
        failures.append("reset_display: none: the reset control was not shown after the zoom")
    if results["label_px"] <= 0:
        failures.append(f"label_px: {results['label_px']}: the labels were not laid out")
    if not 0 < results["before"] < full / 5:
        failures.append(f"before: {results['before']}: w_triton should start narrow")
    return failures


def main():
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: chromium is not installed (apt-get install chromium, or "
              "scripts/install-deps.sh); set CHROMIUM to use another binary")
        return SKIPPED
    with tempfile.TemporaryDirectory() as workdir:
        svg = export_svg(workdir)
        probed = os.path.join(workdir, "probed.svg")
        with open(probed, "w", encoding="utf-8") as f:
            f.write(svg.replace("</svg>", PROBE + "</svg>"))
        results = probe(chromium, probed, workdir)
    failures = check(results)
    print(json.dumps(results, indent=1))
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
