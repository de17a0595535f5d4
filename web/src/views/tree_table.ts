// The call tree as a table: one row per shown frame, the columns of `protonctl tree` with its
// cell text, expand/collapse, sort by a column (click its header), search matches highlighted
// and opened. Used by #/session/ID, #/diff/A/B (diff: cells red/green by sign) and #/job/JOB
// (a straggler's frames marked).

import { diffSign } from "../diff_colour";
import { append, clear, h } from "../dom";
import { displayName, titleText } from "../text";
import {
  ancestorsOf,
  carryExpanded,
  expandedToDepth,
  visibleRows,
  type SortKey,
  type Tree,
} from "../tree";

// More rows than this are not drawn (a search matching every frame of a 100k-node tree).
const MAX_ROWS = 3000;
const OPEN_DEPTH = 2;

export class TreeTable {
  readonly element: HTMLElement;
  private tree: Tree | null = null;
  private fullNames = false;
  private expanded = new Set<number>();
  private matches = new Set<number>();
  private marked = new Set<number>();
  private sort: SortKey | null = null;
  private readonly head = h("thead");
  private readonly body = h("tbody");
  private readonly note = h("p", { class: "note", id: "tree-note" });

  constructor(
    private readonly diff: boolean,
    private readonly onPick: (id: number) => void,
    private readonly mark?: (tree: Tree) => Set<number>,
  ) {
    this.element = h("div", { class: "tree-table" },
      h("table", { id: "tree", class: diff ? "grid diff" : "grid" }, this.head, this.body), this.note);
    this.body.addEventListener("click", (event) => this.clicked(event));
    this.head.addEventListener("click", (event) => this.headerClicked(event));
  }

  setTree(tree: Tree, fullNames: boolean): void {
    this.tree = tree;
    this.marked = this.mark?.(tree) ?? new Set();
    this.fullNames = fullNames;
    this.expanded = expandedToDepth(tree, OPEN_DEPTH);
    this.matches = new Set();
    if (this.sort && this.sort.column >= tree.columns.length) this.sort = null;
    this.renderHead();
    this.renderBody();
  }

  // A live refresh's tree (match: tree.ts's matchNodes from the shown tree): what was open or
  // closed stays so, the sort stays; the search matches are set again by setSearch.
  refreshTree(tree: Tree, match: Int32Array): void {
    if (!this.tree) return this.setTree(tree, this.fullNames);
    this.expanded = carryExpanded(this.tree, this.expanded, tree, match, OPEN_DEPTH);
    this.tree = tree;
    this.marked = this.mark?.(tree) ?? new Set();
    this.matches = new Set();
    this.renderBody();
  }

  // Highlights the matches and (unless open is false: a refresh, which keeps what the user
  // closed) opens their ancestors so each shows.
  setSearch(matches: Set<number>, open = true): void {
    if (!this.tree) return;
    this.matches = matches;
    if (open) for (const id of ancestorsOf(this.tree, matches)) this.expanded.add(id);
    this.renderBody();
  }

  private renderHead(): void {
    const tree = this.tree as Tree;
    clear(this.head);
    const row = h("tr", {}, h("th", { class: "name" }, "name"));
    tree.columns.forEach((column, i) => {
      const mark = this.sort?.column === i ? (this.sort.descending ? " \u25bc" : " \u25b2") : "";
      append(row, h("th", { class: "num sortable", "data-column": String(i), title: "sort by this column" },
        displayName(column, 60) + mark));
    });
    this.head.appendChild(row);
  }

  private renderBody(): void {
    const tree = this.tree as Tree;
    const rows = visibleRows(tree, this.expanded, this.sort, MAX_ROWS);
    const fragment = document.createDocumentFragment();
    for (const id of rows) fragment.appendChild(this.row(id));
    clear(this.body);
    this.body.appendChild(fragment);
    this.note.textContent = rows.length >= MAX_ROWS
      ? `Showing the first ${MAX_ROWS} rows; collapse frames or search to see others.`
      : `${tree.nodes.length} frames, ${rows.length} shown.`;
  }

  private row(id: number): HTMLTableRowElement {
    const tree = this.tree as Tree;
    const node = tree.nodes[id];
    const open = this.expanded.has(id);
    const name = this.fullNames ? node.fullName : node.name;
    const toggle = node.children.length > 0
      ? h("button", { class: "toggle", "aria-expanded": String(open), title: open ? "collapse" : "expand" },
        open ? "\u25be" : "\u25b8")
      : h("span", { class: "leaf" });
    const marked = this.marked.has(id);
    const nameCell = h("td", { class: "name" }, toggle,
      h("span", { class: "frame", title: titleText(node.fullName) }, displayName(name)),
      marked ? h("span", { class: "straggler-mark", title: "max well above the median" }, "straggler") : null);
    nameCell.style.paddingLeft = `${Math.min(node.depth, 60) * 14 + 4}px`;
    const classes = [this.matches.has(id) ? "match" : "", marked ? "straggler" : ""].filter((c) => c !== "");
    const row = h("tr", { "data-id": String(id), class: classes.length > 0 ? classes.join(" ") : undefined }, nameCell);
    node.text.forEach((text, i) => {
      const sign = this.diff ? diffSign(node.values[i]) : "zero";
      append(row, h("td", { class: sign === "zero" ? "num" : "num " + sign }, displayName(text, 60)));
    });
    return row;
  }

  private clicked(event: Event): void {
    const target = event.target as HTMLElement;
    const row = target.closest("tr");
    if (!row || !this.tree) return;
    const id = Number(row.getAttribute("data-id"));
    if (target.closest("button.toggle")) {
      if (this.expanded.has(id)) this.expanded.delete(id);
      else this.expanded.add(id);
      this.renderBody();
    } else if (target.closest("span.frame")) {
      this.onPick(id);
    }
  }

  private headerClicked(event: Event): void {
    const th = (event.target as HTMLElement).closest("th[data-column]");
    if (!th || !this.tree) return;
    const column = Number(th.getAttribute("data-column"));
    // Descending, then ascending, then the server's order.
    if (this.sort?.column !== column) this.sort = { column, descending: true };
    else if (this.sort.descending) this.sort = { column, descending: false };
    else this.sort = null;
    this.renderHead();
    this.renderBody();
  }
}
