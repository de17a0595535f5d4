// The History page's numbers: its selection as the address's query, what each window's bar
// measures (GPU busy share, or records where no window has GPU time), and where the bars go.
// Pure, so node --test checks it (web/test/history.test.ts); views/history.ts draws the SVG.

import type { HistoryWindow } from "./api_types";

// /api/history's parameters, which are `protonctl history`'s options (docs/web.md).
export const SELECTION_KEYS = ["pid", "job", "command", "since", "until"] as const;
export type Selection = Partial<Record<(typeof SELECTION_KEYS)[number], string>>;

// "pid=7&since=2h": the non-empty parameters, in SELECTION_KEYS's order.
export function selectionQuery(selection: Selection): string {
  const parts: string[] = [];
  for (const key of SELECTION_KEYS) {
    const value = selection[key];
    if (value !== undefined && value !== "") parts.push(key + "=" + encodeURIComponent(value));
  }
  return parts.join("&");
}

// The inverse of selectionQuery; other parameters are dropped.
export function parseSelection(query: string): Selection {
  const params = new URLSearchParams(query);
  const selection: Selection = {};
  for (const key of SELECTION_KEYS) {
    const value = params.get(key);
    if (value !== null && value !== "") selection[key] = value;
  }
  return selection;
}

// The earlier range of a range diff (`tree --since A --diff --since B --until C`): /api/range-diff's
// base_since and base_until, over the same windows' selection.
export const BASE_KEYS = ["base_since", "base_until"] as const;
export type BaseRange = Partial<Record<(typeof BASE_KEYS)[number], string>>;

// "pid=7&since=1h&base_since=25h&base_until=24h": #/range-diff's query and /api/range-diff's.
export function rangeDiffQuery(selection: Selection, base: BaseRange): string {
  const parts = [selectionQuery(selection)];
  for (const key of BASE_KEYS) {
    const value = base[key];
    if (value !== undefined && value !== "") parts.push(key + "=" + encodeURIComponent(value));
  }
  return parts.filter((part) => part !== "").join("&");
}

// The inverse of rangeDiffQuery; other parameters are dropped.
export function parseRangeDiff(query: string): { selection: Selection; base: BaseRange } {
  const params = new URLSearchParams(query);
  const base: BaseRange = {};
  for (const key of BASE_KEYS) {
    const value = params.get(key);
    if (value !== null && value !== "") base[key] = value;
  }
  return { selection: parseSelection(query), base };
}

// Whether the page asks again (every 2 s): while a listed window still runs, or the range is
// open-ended (no `until`), where the next window will appear.
export function refreshes(selection: Selection, windows: readonly HistoryWindow[]): boolean {
  return selection.until === undefined || windows.some((w) => w.running);
}

export interface Measure {
  gpu: boolean; // false: no window had GPU time, the bars are records
  label: string;
  values: number[]; // one per window, in the answer's order
  max: number; // the top of the scale: at least 1 (100% busy, or one record)
}

export function measureOf(windows: readonly HistoryWindow[]): Measure {
  const gpu = windows.some((w) => typeof w.gpu_busy === "number");
  const values = windows.map((w) => {
    const v = gpu ? Number(w.gpu_busy ?? 0) : Number(w.records);
    return Number.isFinite(v) && v > 0 ? v : 0;
  });
  return { gpu, label: gpu ? "GPU busy" : "records", values, max: Math.max(1, ...values) };
}

export interface Bar {
  index: number; // the window's index in the answer
  x: number;
  width: number;
  y: number;
  height: number;
}

// Each window's bar inside a width x height plot: x from its start on a time axis that runs from
// the first start to the last end, at least minWidth wide (a 300 ms window in a day is still
// seen), its height its value on [0, measure.max] from the bottom.
export function layoutBars(windows: readonly HistoryWindow[], measure: Measure, width: number,
  height: number, minWidth: number): Bar[] {
  const starts = windows.map((w) => Number(w.start_time_unix_ns) / 1e6);
  const ends = windows.map((w, i) => starts[i] + Math.max(0, Number(w.length_ns) || 0) / 1e6);
  const first = Math.min(...starts);
  const span = Math.max(...ends) - first;
  return windows.map((_, i) => {
    const x = span > 0 ? ((starts[i] - first) / span) * width : 0;
    const barWidth = Math.max(minWidth, span > 0 ? ((ends[i] - starts[i]) / span) * width : width);
    const barHeight = (measure.values[i] / measure.max) * height;
    return { index: i, x: Math.min(x, width - minWidth), width: barWidth, y: height - barHeight, height: barHeight };
  });
}

// A share as protonctl history prints it: "75.0%".
export function percent(fraction: number): string {
  return (100 * fraction).toFixed(1) + "%";
}

// A window's length: "326ms", "1.5s", "2m0s" (the shapes of absl::FormatDuration, in ms).
export function lengthText(lengthNs: number): string {
  const ms = Math.floor(lengthNs / 1e6);
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60000) return `${ms / 1000}s`;
  return `${Math.floor(ms / 60000)}m${(ms % 60000) / 1000}s`;
}
