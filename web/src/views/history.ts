// #/history[?pid=P|job=J|command=RE&since=T&until=T]: the always-on windows `protonctl history`
// lists, as a plot of each window's GPU busy share at its time (its records where no window has
// GPU time) and as a table; a click on a bar or a row opens that window's session. Asked again
// every 2 s while a window runs or the range has no end (refreshes), keeping the selector as
// typed and the scroll; leaving the page stops it.

import { fetchHistory } from "../api";
import type { HistoryAnswer, HistoryWindow } from "../api_types";
import { append, clear, clearError, h, showError, svg } from "../dom";
import { layoutBars, lengthText, measureOf, parseSelection, percent, rangeDiffQuery, refreshes, selectionQuery,
  type Measure, type Selection } from "../history";
import { displayName, titleText } from "../text";
import { REFRESH_MS } from "./tree_page";

const PLOT = { width: 1000, height: 200, left: 56, bottom: 24, top: 8, minBar: 3 };
const WHO_KINDS = ["pid", "job", "command"] as const;

function openWindow(session: string): void {
  if (/^\d+$/.test(session)) window.location.hash = "#/session/" + session;
}

function startText(w: HistoryWindow): string {
  return new Date(Number(w.start_time_unix_ns) / 1e6).toLocaleString();
}

function valueText(measure: Measure, value: number): string {
  return measure.gpu ? percent(value) : String(Math.round(value));
}

function plot(windows: HistoryWindow[], measure: Measure): SVGElement {
  const { width, height, left, bottom, top, minBar } = PLOT;
  const chart = svg("svg", { id: "history-plot", viewBox: `0 0 ${left + width + 8} ${top + height + bottom}`,
    width: left + width + 8, height: top + height + bottom, role: "img", "data-measure": measure.gpu ? "gpu" : "records" });
  for (const fraction of [0, 0.5, 1]) {
    const y = top + height - fraction * height;
    chart.appendChild(svg("line", { x1: left, x2: left + width, y1: y, y2: y, class: "grid-line" }));
    chart.appendChild(svg("text", { x: left - 4, y: y + 4, "text-anchor": "end", class: "tick" },
      valueText(measure, fraction * measure.max)));
  }
  const bars = layoutBars(windows, measure, width, height, minBar);
  for (const bar of bars) {
    const w = windows[bar.index];
    const tip = `session ${w.session}, ${startText(w)}, ${lengthText(w.length_ns)}: ` +
      `${measure.label} ${valueText(measure, measure.values[bar.index])}\n${titleText(w.who)}`;
    // A window of 0 still shows, as a line on the axis.
    const rect = svg("rect", { x: left + bar.x, y: top + Math.min(bar.y, height - 1), width: bar.width,
      height: Math.max(bar.height, 1),
      class: w.running ? "bar running" : "bar", "data-session": w.session }, svg("title", {}, tip));
    rect.addEventListener("click", () => openWindow(w.session));
    chart.appendChild(rect);
  }
  if (windows.length > 0) {
    const y = top + height + 16;
    chart.appendChild(svg("text", { x: left, y, class: "tick" }, startText(windows[0])));
    chart.appendChild(svg("text", { x: left + width, y, "text-anchor": "end", class: "tick" },
      startText(windows[windows.length - 1])));
  }
  return chart;
}

// A Kind column (window, hour, day) only where a merged period is listed, as protonctl history's
// KIND column.
function table(windows: HistoryWindow[]): HTMLTableElement {
  const periods = windows.some((w) => (w.kind ?? "window") !== "window");
  const headers = ["Session", "Start", "Length", "Who", "GPU busy", "Records", "Late", "Top kernel",
    ...(periods ? ["Kind"] : [])];
  const body = h("tbody");
  for (const w of windows) {
    // As protonctl history says it: a running window is summed up when it stops.
    const unsummarized = w.running ? "(when it stops)" : "(no summary)";
    const top = w.summarized === false ? unsummarized : w.top_kernel === null ? "-" :
      displayName(String(w.top_kernel), 80) + (w.top_kernel_share === null ? "" : ` (${percent(w.top_kernel_share)})`);
    const row = h("tr", { "data-session": w.session, class: "window" },
      h("td", { class: "num" }, h("a", { href: "#/session/" + w.session }, w.session)),
      h("td", {}, startText(w)),
      h("td", { class: "num" }, lengthText(w.length_ns) + (w.running ? " so far" : "")),
      h("td", { class: "name", title: titleText(w.who) }, displayName(w.who, 100)),
      h("td", { class: "num" }, w.gpu_busy === null ? "-" : percent(w.gpu_busy)),
      h("td", { class: "num" }, String(w.records)),
      h("td", {}, w.late ?? "-"),
      h("td", { class: "name", title: titleText(String(w.top_kernel ?? "")) }, top),
      ...(periods ? [h("td", {}, String(w.kind ?? "window"))] : []));
    row.addEventListener("click", () => openWindow(w.session));
    body.appendChild(row);
  }
  return h("table", { id: "history", class: "grid" },
    h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", {}, t)))), body);
}

function selector(selection: Selection): HTMLElement {
  const kind = h("select", { id: "history-kind", title: "whose windows" },
    h("option", { value: "" }, "all windows"), ...WHO_KINDS.map((k) => h("option", { value: k }, k)));
  const chosen = WHO_KINDS.find((k) => selection[k] !== undefined) ?? "";
  kind.value = chosen;
  const who = h("input", { type: "text", id: "history-who", placeholder: "pid, job or command regex",
    value: chosen ? selection[chosen] : undefined });
  const since = h("input", { type: "text", id: "history-since", placeholder: "since: 2h or RFC 3339",
    value: selection.since });
  const until = h("input", { type: "text", id: "history-until", placeholder: "until", value: selection.until });
  const show = h("button", { type: "button", id: "history-show" }, "Show");
  const apply = () => {
    const next: Selection = { since: since.value.trim(), until: until.value.trim() };
    if (kind.value !== "") next[kind.value as (typeof WHO_KINDS)[number]] = who.value.trim();
    const query = selectionQuery(next);
    window.location.hash = "#/history" + (query ? "?" + query : "");
  };
  show.addEventListener("click", apply);
  for (const input of [who, since, until]) {
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") apply(); });
  }
  return h("div", { class: "controls" }, kind, who, since, until, show);
}

// "Compare with": the same windows over an earlier range, as #/range-diff (protonctl tree
// --since A --diff --since B --until C); the range shown is "now".
function comparer(selection: Selection): HTMLElement {
  const since = h("input", { type: "text", id: "history-base-since", placeholder: "then since: 25h" });
  const until = h("input", { type: "text", id: "history-base-until", placeholder: "then until: 24h" });
  const compare = h("button", { type: "button", id: "history-compare" }, "Compare");
  const apply = () => {
    window.location.hash = "#/range-diff?" +
      rangeDiffQuery(selection, { base_since: since.value.trim(), base_until: until.value.trim() });
  };
  compare.addEventListener("click", apply);
  for (const input of [since, until]) {
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") apply(); });
  }
  return h("div", { class: "controls" }, "Compare these windows with an earlier range: ", since, until, compare);
}

function render(view: HTMLElement, answer: HistoryAnswer, live: boolean): void {
  const windows = Array.isArray(answer?.windows) ? answer.windows : [];
  const status = h("p", { id: "history-status", class: "status" },
    (windows.length > 0 ? `${windows.length} of ${Number(answer.total_windows)} always-on windows`
      : displayName(String(answer?.note ?? "no always-on window"), 500)) +
    (live ? `; refreshing every ${REFRESH_MS / 1000} s, read ${new Date().toLocaleTimeString()}` : ""));
  append(view, status);
  if (windows.length === 0) return;
  const measure = measureOf(windows);
  append(view,
    h("p", { id: "history-measure", class: "note" }, measure.gpu
      ? "Each bar: the window's GPU busy share (GPU time over its length and GPUs), at its time."
      : "No GPU time in these windows (no GPU, or no kernel ran): each bar is the window's records instead."),
    h("div", { class: "plot-scroll" }, plot(windows, measure)),
    table(windows));
}

// Replaces the results with `answer`'s, keeping where the page and the plot were scrolled to.
function rerender(results: HTMLElement, answer: HistoryAnswer, live: boolean): void {
  const pageScroll = window.scrollY;
  const plotScroll = results.querySelector(".plot-scroll")?.scrollLeft ?? 0;
  clear(results);
  render(results, answer, live);
  const plotBox = results.querySelector(".plot-scroll");
  if (plotBox) plotBox.scrollLeft = plotScroll;
  window.scrollTo(window.scrollX, pageScroll);
}

export function showHistory(view: HTMLElement, query: string): () => void {
  let stopped = false;
  let timer: number | undefined;
  const selection = parseSelection(query);
  const results = h("div", { id: "history-results" });
  append(view, h("h1", {}, "History"),
    h("p", { class: "note" }, "The always-on windows (protond --always-on), as protonctl history lists them. " +
      "Click a bar or a row to open that window's call tree."),
    selector(selection), comparer(selection), results);
  const load = async () => {
    try {
      const answer = await fetchHistory(selectionQuery(selection));
      if (stopped) return;
      clearError();
      const windows = Array.isArray(answer?.windows) ? answer.windows : [];
      const live = refreshes(selection, windows);
      rerender(results, answer, live);
      if (live) timer = window.setTimeout(load, REFRESH_MS);
    } catch (e) {
      if (stopped) return;
      showError(String((e as Error).message ?? e));
      timer = window.setTimeout(load, REFRESH_MS * 2);
    }
  };
  void load();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
  };
}
