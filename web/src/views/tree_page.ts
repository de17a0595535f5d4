// What #/session/ID and #/diff/A/B share: the controls (metrics, short/full names, search, the
// flame graph's column), the table and the flame graph over one answer of /api/tree or
// /api/diff. The first render of a tree sets performance mark "protond-tree-rendered" and
// data-tree-rendered-ms on <html> (the browser test reads them).

import type { TreeOptions } from "../api";
import type { TreeAnswer } from "../api_types";
import { append, clear, clearError, h, showError } from "../dom";
import { displayName } from "../text";
import { buildTree, numericColumns, searchNodes, type Tree } from "../tree";
import { columnChoice, FlameGraph } from "./flame";
import { TreeTable } from "./tree_table";

export interface TreePageSpec {
  diff: boolean;
  load: (options: TreeOptions) => Promise<TreeAnswer>;
  header: (answer: TreeAnswer) => Node; // session facts, export links
}

function listOf(title: string, lines: unknown, className: string): Node | null {
  if (!Array.isArray(lines) || lines.length === 0) return null;
  return h("div", { class: className }, h("strong", {}, title),
    h("ul", {}, ...lines.slice(0, 50).map((line) => h("li", {}, displayName(String(line), 500)))));
}

export function showTreePage(view: HTMLElement, spec: TreePageSpec): () => void {
  let stopped = false;
  const options: TreeOptions = { metrics: "", fullNames: false };
  const metrics = h("input", { type: "text", id: "metrics", placeholder: "metrics, e.g. time/ms,count",
    title: "protonctl tree -m: Enter applies" });
  const names = h("select", { id: "names", title: "short or full C++ names" },
    h("option", { value: "short" }, "short names"), h("option", { value: "full" }, "full names"));
  const search = h("input", { type: "search", id: "search", placeholder: "search frames" });
  const columnSlot = h("span");
  const header = h("div", { class: "header" });
  const status = h("span", { class: "status", id: "tree-status" }, "loading\u2026");
  let tree: Tree | null = null;
  let flameColumn = 0;
  let firstRender = true;
  const flame = new FlameGraph(spec.diff);
  const table = new TreeTable(spec.diff, (id) => flame.zoomTo(id));

  const applySearch = () => {
    if (!tree) return;
    const found = searchNodes(tree, search.value, options.fullNames);
    status.textContent = search.value === "" ? "" : `${found.size} frames match`;
    table.setSearch(found);
    flame.setSearch(found);
  };

  const load = async () => {
    status.textContent = "loading\u2026";
    try {
      const answer = await spec.load({ ...options });
      if (stopped) return;
      tree = buildTree(answer);
      clearError();
      clear(header);
      append(header, spec.header(answer), listOf("Problems", answer.session?.problems, "problems"),
        listOf("Notes", answer.notes, "notes"));
      const numeric = numericColumns(tree);
      if (!numeric.includes(flameColumn)) flameColumn = numeric[0] ?? 0;
      clear(columnSlot);
      if (numeric.length > 0) {
        append(columnSlot, columnChoice(tree, numeric, flameColumn, (c) => {
          flameColumn = c;
          flame.setColumn(c);
        }));
      }
      table.setTree(tree, options.fullNames);
      flame.setTree(tree, flameColumn, options.fullNames);
      status.textContent = "";
      if (search.value !== "") applySearch();
      if (firstRender) {
        firstRender = false;
        performance.mark("protond-tree-rendered");
        document.documentElement.setAttribute("data-tree-rendered-ms", String(Math.round(performance.now())));
      }
    } catch (e) {
      if (stopped) return;
      status.textContent = "";
      showError(String((e as Error).message ?? e));
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
  search.addEventListener("input", applySearch);
  append(view, header,
    h("div", { class: "controls" }, metrics, names, search, h("label", {}, "flame graph by ", columnSlot), status),
    h("section", { class: "flame-section" }, h("h2", {}, "Flame graph"), flame.element),
    h("section", {}, h("h2", {}, "Call tree"), table.element));
  void load();
  return () => {
    stopped = true;
  };
}
