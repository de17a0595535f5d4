import assert from "node:assert/strict";
import { test } from "node:test";
import type { StallsAnswer, TopKernel } from "../src/api_types";
import { hasStalls, instructionCells, instructionsOf, kernelCells, rateText, verdictText } from "../src/panes";

function kernel(extra: Partial<TopKernel>): TopKernel {
  return {
    name: "nvjet", full_name: "nvjet", time_ns: 2e8, share: 2 / 3, count: 700, average_ns: 285714.3,
    tflop_per_s: 494.7, gbyte_per_s: 335, bound: "compute", percent_of_peak: 50, no_verdict: null,
    text: ["200.000", "66.7", "700", "285.714", "494.7", "335.0", "compute", "50.0", "nvjet"], ...extra,
  };
}

test("a kernel's verdict: its bound and percent of peak, or why there is none", () => {
  assert.equal(verdictText(kernel({})), "compute bound, 50.0% of peak");
  assert.equal(verdictText(kernel({ bound: "memory", percent_of_peak: 71.43 })), "memory bound, 71.4% of peak");
  assert.equal(verdictText(kernel({ bound: null, percent_of_peak: null, no_verdict: "no GPU time" })),
    "no verdict: no GPU time");
});

test("a kernel's row: protonctl top's cells, the rates it has, the verdict", () => {
  assert.deepEqual(kernelCells(kernel({})),
    ["nvjet", "200.000", "66.7%", "700", "494.7 TFLOP/s, 335.0 GB/s", "compute bound, 50.0% of peak"]);
  assert.equal(rateText(kernel({ tflop_per_s: null })), "335.0 GB/s");
  assert.equal(rateText(kernel({ tflop_per_s: null, gbyte_per_s: null })), "-");
});

const STALLS: StallsAnswer = {
  session: { id: "1" }, columns: ["STALLED", "STALLED %", "SAMPLES", "TOP REASONS", "LINE"], note: null,
  lines: [
    { line: "/k.cu:6@chase", stalled: 9, share: 0.9, samples: 10, reasons: [], text: [],
      instructions: [{ offset: "0x0170", sass: "", samples: 4, stalled: 3, reasons: [], reasons_text: "wait 100%" }] },
    { line: "/k.cu:9@spin", stalled: 1, share: 0.1, samples: 2, reasons: [], text: [] },
  ],
};

test("the stalls pane: shown only with lines; a line's instructions, and none where not asked", () => {
  assert.equal(hasStalls(STALLS), true);
  assert.equal(hasStalls({ ...STALLS, lines: [], note: "no PC samples in this profile" }), false);
  assert.equal(hasStalls(null), false);
  assert.deepEqual(instructionsOf(STALLS, "/k.cu:6@chase")?.map(instructionCells),
    [["0x0170", "(no text)", "4", "3", "wait 100%"]]);
  assert.equal(instructionsOf(STALLS, "/k.cu:9@spin"), null);
  assert.equal(instructionsOf(STALLS, "/nowhere"), null);
});
