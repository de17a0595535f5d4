import assert from "node:assert/strict";
import { test } from "node:test";
import type { HistoryWindow } from "../src/api_types";
import { layoutBars, lengthText, measureOf, parseRangeDiff, parseSelection, percent, rangeDiffQuery, refreshes,
  selectionQuery } from "../src/history";

// A stopped window starting `startMs` after 10:00:00 UTC for `lengthMs`.
function historyWindow(session: string, startMs: number, lengthMs: number, busy: number | null, records = "10"): HistoryWindow {
  const start = 1795773600000n + BigInt(startMs);
  return {
    session, who: "pid 7: train", pids: [7], job: "", running: false,
    start_time_unix_ns: String(start * 1000000n), end_time_unix_ns: String((start + BigInt(lengthMs)) * 1000000n),
    length_ns: lengthMs * 1e6, records, gpu_time_ns: 0, gpu_busy: busy, top_kernel: null, top_kernel_share: null,
    late: null, summarized: true,
  };
}

test("the selection round-trips through the query, empty values left out", () => {
  assert.equal(selectionQuery({ pid: "7", since: "2h", until: "" }), "pid=7&since=2h");
  assert.equal(selectionQuery({ command: "train\\.py (a|b)", job: "" }), "command=train%5C.py%20(a%7Cb)");
  assert.deepEqual(parseSelection("command=train%5C.py%20(a%7Cb)&other=1"), { command: "train\\.py (a|b)" });
  assert.deepEqual(parseSelection(""), {});
});

test("a range diff's query is the selection and the earlier range, and round-trips", () => {
  const query = rangeDiffQuery({ pid: "7", since: "1h" }, { base_since: "25h", base_until: "24h" });
  assert.equal(query, "pid=7&since=1h&base_since=25h&base_until=24h");
  assert.deepEqual(parseRangeDiff(query + "&other=1"),
    { selection: { pid: "7", since: "1h" }, base: { base_since: "25h", base_until: "24h" } });
  assert.equal(rangeDiffQuery({}, { base_until: "2026-11-27T10:00:00Z" }), "base_until=2026-11-27T10%3A00%3A00Z");
});

test("bars measure GPU busy share when any window has GPU time, else records", () => {
  const gpu = measureOf([historyWindow("1", 0, 300, 0.5), historyWindow("2", 1000, 300, null), historyWindow("3", 2000, 300, 1.5)]);
  assert.deepEqual(gpu, { gpu: true, label: "GPU busy", values: [0.5, 0, 1.5], max: 1.5 });
  assert.equal(measureOf([historyWindow("1", 0, 300, 0.25)]).max, 1); // the scale reaches 100%
  const cpu = measureOf([historyWindow("1", 0, 300, null, "263"), historyWindow("2", 1000, 300, null, "8")]);
  assert.deepEqual(cpu, { gpu: false, label: "records", values: [263, 8], max: 263 });
});

test("each bar sits at its window's time, as wide as its length, as high as its value", () => {
  // 0-300 ms, 1000-1300 ms, 1700-2000 ms: the axis runs 2000 ms over 1000 px.
  const windows = [historyWindow("1", 0, 300, 0.5), historyWindow("2", 1000, 300, 1), historyWindow("3", 1700, 300, 0)];
  const bars = layoutBars(windows, measureOf(windows), 1000, 200, 3);
  assert.deepEqual(bars, [
    { index: 0, x: 0, width: 150, y: 100, height: 100 },
    { index: 1, x: 500, width: 150, y: 0, height: 200 },
    { index: 2, x: 850, width: 150, y: 200, height: 0 },
  ]);
});

test("a short window in a long range is still minWidth wide, and stays inside the plot", () => {
  const windows = [historyWindow("1", 0, 300, 1), historyWindow("2", 3_600_000 - 300, 300, 1)];
  const bars = layoutBars(windows, measureOf(windows), 1000, 100, 3);
  assert.equal(bars[0].width, 3);
  assert.equal(bars[1].x, 997);
  const one = layoutBars([historyWindow("1", 0, 0, 1)], measureOf([historyWindow("1", 0, 0, 1)]), 1000, 100, 3);
  assert.deepEqual(one, [{ index: 0, x: 0, width: 1000, y: 0, height: 100 }]);
});

test("shares and lengths read as protonctl history prints them", () => {
  assert.equal(percent(0.75), "75.0%");
  assert.equal(percent(0.12345), "12.3%");
  assert.equal(lengthText(326.9e6), "326ms");
  assert.equal(lengthText(1500e6), "1.5s");
  assert.equal(lengthText(120000e6), "2m0s");
});

test("the page refreshes while a window runs or the range has no end", () => {
  const stopped = [historyWindow("1", 0, 300, null)];
  const running = [...stopped, { ...historyWindow("2", 1000, 300, null), running: true }];
  assert.equal(refreshes({ pid: "7" }, stopped), true); // open-ended: the next window will come
  assert.equal(refreshes({ pid: "7", until: "1h" }, stopped), false);
  assert.equal(refreshes({ pid: "7", until: "1h" }, running), true);
  assert.equal(refreshes({ since: "2h", until: "1h" }, []), false);
});
