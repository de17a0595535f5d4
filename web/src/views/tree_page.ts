// What #/session/ID and #/diff/A/B share: the controls (metrics, short/full names, search, the
// flame graph's column), the table and the flame graph over one answer of /api/tree or
// /api/diff. The first render of a tree sets performance mark "protond-tree-rendered" and
// data-tree-rendered-ms on <html> (the browser test reads them). A live tree (spec.live) is read
// again every 2 s; a refresh keeps what the user did (open and closed frames, sort, search,
// metrics, names, the flame graph's column and zoom, the scroll position) and, when it fails,
// says so beside "live" and tries again, leaving the last tree shown.

import type { TreeOptions } from "../api";
import type { TreeAnswer } from "../api_types";
import { append, clear, clearError, h, showError } from "../dom";
import { displayName } from "../text";
import { buildTree, matchNodes, numericColumns, searchNodes, type Tree } from "../tree";
import { columnChoice, FlameGraph } from "./flame";
import { TreeTable } from "./tree_table";

export interface TreePageSpec {
  diff: boolean;
  load: (options: TreeOptions) => Promise<TreeAnswer>;
  header: (answer: TreeAnswer) => Node; // session facts, export links
  // Whether this answer's tree may still change (a RUNNING session): the page then asks again
  // every REFRESH_MS until an answer says no. Absent: never (a diff).
  live?: (answer: TreeAnswer) => boolean;
  // Frames to mark in the table (the job page's stragglers). Absent: none.
  marked?: (tree: Tree) => Set<number>;
  // More of the page (the session's panes): shown below the tree, and read again after each
  // answer of the tree (so a live tree's refresh refreshes them too) with the tree's options.
  panes?: { element: Node; read: (options: TreeOptions) => void };
}

export const REFRESH_MS = 2000;

// A titled list of untrusted lines (problems, notes), at most 50; null when there are none.
export function listOf(title: string, lines: unknown, className: string): Node | null {
  if (!Array.isArray(lines) || lines.length === 0) return null;
  return h("div", { class: className }, h("strong", {}, title),
    h("ul", {}, ...lines.slice(0, 50).map((line) => h("li", {}, displayName(String(line), 500)))));
}

export function showTreePage(view: HTMLElement, spec: TreePageSpec): () => void {
  let stopped = false;
  let timer: number | undefined;
  let generation = 0; // the latest load's number: an older answer is dropped
  let wasLive = false;
  const options: TreeOptions = { metrics: "", fullNames: false };
  const metrics = h("input", { type: "text", id: "metrics", placeholder: "metrics, e.g. time/ms,count",
    title: "protonctl tree -m: Enter applies" });
  const names = h("select", { id: "names", title: "short or full C++ names" },
    h("option", { value: "short" }, "short names"), h("option", { value: "full" }, "full names"));
  const search = h("input", { type: "search", id: "search", placeholder: "search frames" });
  const columnSlot = h("span");
  const header = h("div", { class: "header" });
  const status = h("span", { class: "status", id: "tree-status" }, "loading\u2026");
  const live = h("span", { class: "status", id: "live-status" });
  let tree: Tree | null = null;
  let flameColumn = 0;
  let shownColumns = "";
  let shownOptions = ""; // the metrics and names of the tree shown
  let firstRender = true;
  let refreshes = 0;
  const flame = new FlameGraph(spec.diff);
  const table = new TreeTable(spec.diff, (id) => flame.zoomTo(id), spec.marked);

  const applySearch = (open = true) => {
    if (!tree) return;
    const found = searchNodes(tree, search.value, options.fullNames);
    status.textContent = search.value === "" ? "" : `${found.size} frames match`;
    table.setSearch(found, open);
    flame.setSearch(found);
  };

  const schedule = (ms: number) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void load(true), ms);
  };

  // refresh: a live refresh (keeps the view's state, quiet) rather than a first load or a
  // change of metrics or names (which start the table over).
  const load = async (refresh = false) => {
    const mine = ++generation;
    window.clearTimeout(timer);
    timer = undefined;
    if (!refresh) status.textContent = "loading\u2026";
    const asked = { ...options };
    try {
      const answer = await spec.load(asked);
      if (stopped || mine !== generation) return;
      const next = buildTree(answer);
      const scroll = [window.scrollX, window.scrollY];
      const flameScroll = flame.element.querySelector(".flame-scroll")?.scrollTop ?? 0;
      clearError();
      clear(header);
      append(header, spec.header(answer), listOf("Problems", answer.session?.problems, "problems"),
        listOf("Notes", answer.notes, "notes"));
      const numeric = numericColumns(next);
      if (!numeric.includes(flameColumn)) flameColumn = numeric[0] ?? 0;
      const columnsKey = JSON.stringify([next.columns, numeric, flameColumn]);
      if (!refresh || columnsKey !== shownColumns) { // (a refresh leaves the <select> alone)
        shownColumns = columnsKey;
        clear(columnSlot);
        if (numeric.length > 0) {
          append(columnSlot, columnChoice(next, numeric, flameColumn, (c) => {
            flameColumn = c;
            shownColumns = "";
            flame.setColumn(c);
          }));
        }
      }
      // A refresh keeps the view's state only over a tree of the same metrics and names (not
      // after a change of them that failed: that answer starts the table over).
      const keep = refresh && tree !== null && JSON.stringify(asked) === shownOptions;
      shownOptions = JSON.stringify(asked);
      if (keep && tree) {
        const match = matchNodes(tree, next);
        table.refreshTree(next, match);
        flame.refreshTree(next, match, flameColumn);
      } else {
        table.setTree(next, asked.fullNames);
        flame.setTree(next, flameColumn, asked.fullNames);
      }
      tree = next;
      if (!refresh) status.textContent = "";
      if (search.value !== "") applySearch(!refresh);
      if (refresh) {
        window.scrollTo(scroll[0], scroll[1]);
        const box = flame.element.querySelector(".flame-scroll");
        if (box) box.scrollTop = flameScroll;
        refreshes++;
      }
      spec.panes?.read(asked);
      const running = spec.live?.(answer) ?? false;
      if (running) {
        wasLive = true;
        live.textContent = `live, refreshing every ${REFRESH_MS / 1000} s, read ${new Date().toLocaleTimeString()}`;
        schedule(REFRESH_MS);
      } else if (wasLive) {
        live.textContent = `stopped: the final tree, read ${new Date().toLocaleTimeString()}`;
      }
      live.setAttribute("data-refreshes", String(refreshes));
      live.setAttribute("data-live", running ? "true" : "false");
      if (firstRender) {
        firstRender = false;
        performance.mark("protond-tree-rendered");
        document.documentElement.setAttribute("data-tree-rendered-ms", String(Math.round(performance.now())));
      }
    } catch (e) {
      if (stopped || mine !== generation) return;
      const message = String((e as Error).message ?? e);
      if (refresh || (wasLive && tree)) {
        // The last tree stays; a short note, and another try.
        live.textContent = `refresh failed (${displayName(message, 120)}); trying again in ${REFRESH_MS * 2 / 1000} s`;
        live.setAttribute("data-live", "retrying");
        if (!refresh) {
          status.textContent = "";
          showError(message);
        }
        schedule(REFRESH_MS * 2);
      } else {
        status.textContent = "";
        showError(message);
      }
    }
  };

  metrics.addEventListener("change", () => {
    options.metrics = metrics.value.trim();
    void load();
  });
  names.addEventListener("change", () => {
    options.fullNames = names.value === "full";
    void load();
  });
  search.addEventListener("input", () => applySearch());
  append(view, header,
    h("div", { class: "controls" }, metrics, names, search, h("label", {}, "flame graph by ", columnSlot), status,
      live),
    h("section", { class: "flame-section" }, h("h2", {}, "Flame graph"), flame.element),
    h("section", {}, h("h2", {}, "Call tree"), table.element), spec.panes?.element);
  void load();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
    timer = undefined;
  };
}
