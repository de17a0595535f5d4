import assert from "node:assert/strict";
import { test } from "node:test";
import type { JobAnswer, Session } from "../src/api_types";
import { jobIsRunning, jobOfSession, whereRanksAre, MAX_VERDICT_LINES, stragglerFrames, verdictText } from "../src/job";
import { buildTree } from "../src/tree";
import { node } from "./fixtures";

const SPREAD = ["time (ns) total", "min", "median", "max", "slowest rank", "ranks"];

// total, min, median, max, slowest rank, ranks
function spread(nodes: ReturnType<typeof node>[]) {
  return buildTree({ columns: SPREAD, nodes });
}

test("a frame whose max is 1.5x its median or more is a straggler's; below, it is not", () => {
  const tree = spread([
    node(0, null, "ROOT", [400, 90, 100, 110, 1, 4]),
    node(1, 0, "exactly 1.5x", [300, 40, 60, 90, 2, 4]),
    node(2, 0, "just under", [280, 40, 60, 89, 3, 4]),
    node(3, 0, "all equal", [200, 50, 50, 50, 0, 4]),
  ]);
  assert.deepEqual([...stragglerFrames(tree)], [1]);
});

test("one rank alone, or an excess under 1% of the largest max, is no straggler", () => {
  const tree = spread([
    node(0, null, "ROOT", [10000, 1000, 1000, 8000, 1, 2]),
    node(1, 0, "one rank", [500, 500, 500, 500, 0, 1]),
    node(2, 0, "tiny", [30, 10, 10, 89, 1, 2]), // 79 more: under 1% of 8000
    node(3, 0, "big enough", [130, 10, 10, 91, 1, 2]), // 81 more: over 1%
  ]);
  assert.deepEqual([...stragglerFrames(tree)].sort(), [0, 3]);
});

test("a frame with a blank cell, or a tree without the spread's columns, marks nothing", () => {
  const blank = spread([node(0, null, "ROOT", [null, null, null, null, null, null])]);
  assert.equal(stragglerFrames(blank).size, 0);
  const plain = buildTree({ columns: ["time (ns)"], nodes: [node(0, null, "ROOT", [5])] });
  assert.equal(stragglerFrames(plain).size, 0);
});

test("the job page is read again only while the server says a session of the job runs", () => {
  const answer = (running: unknown) => ({ running }) as unknown as JobAnswer;
  assert.equal(jobIsRunning(answer(true)), true);
  assert.equal(jobIsRunning(answer(false)), false);
  assert.equal(jobIsRunning(answer("true")), false);
  assert.equal(jobIsRunning({} as JobAnswer), false);
});

test("the ranks are on this node, or on as many nodes as they have hosts", () => {
  const ranks = (...hosts: string[]) =>
    ({ ranks: hosts.map((host, i) => ({ rank: String(i), host, session: "1" })) }) as unknown as JobAnswer;
  assert.equal(whereRanksAre(ranks("/run/protond.sock", "/run/protond.sock")), "on this node");
  assert.equal(whereRanksAre(ranks("node1:7878", "node1:7878", "node2:7878")), "on 2 nodes");
  assert.equal(whereRanksAre({} as JobAnswer), "on this node");
});

test("a session's job: its own, else its first process's SLURM_JOB_ID, else POD_NAME", () => {
  assert.equal(jobOfSession({ id: "1", job: "77" }), "77");
  const processes = (jobs: [string, string][]): Session => ({
    id: "1",
    processes: jobs.map(([slurm, pod]) => ({ job: { slurm_job_id: slurm, pod } })),
  });
  assert.equal(jobOfSession(processes([["", ""], ["4711", ""]])), "4711");
  assert.equal(jobOfSession(processes([["", "trainer-0"]])), "trainer-0");
  assert.equal(jobOfSession(processes([["77", "trainer-0"]])), "77");
  assert.equal(jobOfSession(processes([["", ""]])), "");
  assert.equal(jobOfSession({ id: "1" }), "");
});

test("the verdict keeps its lines and escapes what else a name could hide", () => {
  assert.equal(verdictText("rank 1 arrives last\n\nCOLLECTIVE  CALLS\n"), "rank 1 arrives last\n\nCOLLECTIVE  CALLS\n");
  assert.equal(verdictText("a\u202eb\u001b[31m\r"), "a\\u{202e}b\\u{1b}[31m\\u{d}");
  const long = Array.from({ length: MAX_VERDICT_LINES + 5 }, (_, i) => `line ${i}`).join("\n");
  const shown = verdictText(long).split("\n");
  assert.equal(shown.length, MAX_VERDICT_LINES + 1);
  assert.equal(shown[shown.length - 1], `\u2026 (${MAX_VERDICT_LINES + 5} lines)`);
});
