import assert from "node:assert/strict";
import { test } from "node:test";
import type { StallsAnswer, TopKernel } from "../src/api_types";
import {
  FinalAnswers, hasStalls, samplesNoPcs, instructionCells, instructionsOf, kernelCells, kernelRow, rateText, stallRow, verdictText,
} from "../src/panes";

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

test("a kernel's sort keys are the values behind its cells; without a verdict, none", () => {
  assert.deepEqual(kernelRow(kernel({})).keys, ["nvjet", 2e8, 2 / 3, 700, 494.7, 50]);
  assert.deepEqual(kernelRow(kernel({ bound: null, percent_of_peak: null, tflop_per_s: null })).keys.slice(4), [null, null]);
  assert.deepEqual(kernelRow(kernel({ full_name: "void nvjet<float>(int)" })).names, ["nvjet", "void nvjet<float>(int)"]);
});

test("a stalled line's keys: its numbers as numbers, its line as text (a digit first too), named by the line", () => {
  const row = stallRow({ line: "2d/k.cu:6@chase", stalled: 9, share: 0.9, samples: 10, reasons: [],
    text: ["100", "77.5", "101", "long_scoreboard 90%", "2d/k.cu:6@chase"] }, 4);
  assert.deepEqual(row.keys, [100, 77.5, 101, "long_scoreboard 90%", "2d/k.cu:6@chase"]);
  assert.deepEqual(row.names, ["2d/k.cu:6@chase"]);
});

test("an ended session's answers are read once; a running one's every time", async () => {
  let reads = 0;
  const answers = new FinalAnswers();
  const running = () => { reads++; return Promise.resolve({ session: { id: "1", state: "RUNNING" } }); };
  await answers.read("top names=false", running);
  await answers.read("top names=false", running);
  assert.equal(reads, 2);
  const stopped = () => { reads++; return Promise.resolve({ session: { id: "1", state: "STOPPED" }, n: reads }); };
  const first = await answers.read("top names=false", stopped);
  const again = await answers.read("top names=false", stopped);
  assert.equal(reads, 3);
  assert.equal(again, first);
  await answers.read("top names=true", stopped); // another question: read
  assert.equal(reads, 4);
});

test("a running session's stalls are read once when it records no PC samples", async () => {
  let reads = 0;
  const answers = new FinalAnswers();
  const plain = () => { reads++; return Promise.resolve({ session: { id: "1", state: "RUNNING" }, lines: [] }); };
  await answers.read("stalls sass=false", plain, samplesNoPcs);
  await answers.read("stalls sass=false", plain, samplesNoPcs);
  assert.equal(reads, 1);
  const sampled = () => {
    reads++;
    return Promise.resolve({ session: { id: "2", state: "RUNNING", mode: "pcsampling:interval=1024" }, lines: [] });
  };
  const other = new FinalAnswers();
  await other.read("stalls sass=false", sampled, samplesNoPcs);
  await other.read("stalls sass=false", sampled, samplesNoPcs);
  assert.equal(reads, 3);
  assert.equal(samplesNoPcs({}), false); // no session said: read again
});
