// The session page's Kernels, Devices and Stalls panes (docs/web.md): /api/top's kernels with
// their roofline verdicts and the session's devices, and, for a PC-sampled session,
// /api/stalls' lines; a click on a line asks for its SASS instructions (sass=1) and shows them
// under the table. read() is called with each answer of the tree (tree_page.ts), so the panes
// follow a running session's 2 s refresh; an answer overtaken by a later read is dropped. Each
// pane sorts by a click on a heading and the filter box narrows kernels and lines by name
// (pane_rows.ts); both stay across refreshes, as do an ended session's answers (FinalAnswers).

import { fetchStalls, fetchTop } from "../api";
import type { StallsAnswer, TopAnswer } from "../api_types";
import { append, clear, h } from "../dom";
import { nextSort, type PaneRow, shownRows, sortMark } from "../pane_rows";
import {
  deviceRow,
  FinalAnswers,
  hasStalls,
  INSTRUCTION_HEADERS,
  instructionCells,
  instructionsOf,
  KERNEL_HEADERS,
  kernelRow,
  kernelsOf,
  samplesNoPcs,
  stallRow,
} from "../panes";
import { displayName, titleText } from "../text";
import type { SortKey } from "../tree";

// A row as drawn: its cells, the tooltip of each, and what a click on it does.
interface DrawnRow extends PaneRow {
  titles?: (string | undefined)[];
  line?: string; // a stalled line: a click shows its instructions
}

// Columns that hold names (left-aligned, monospace); the others are numbers or short text.
function table(id: string, headers: string[], rows: string[][], nameColumns: number[],
  titles: (string | undefined)[][] = []): HTMLTableElement {
  return h("table", { id, class: "grid" },
    h("thead", {}, h("tr", {}, ...headers.map((text) => h("th", {}, text)))),
    h("tbody", {}, ...rows.map((cells, r) => h("tr", {}, ...cells.map((cell, c) =>
      h("td", { class: nameColumns.includes(c) ? "name" : undefined, title: titles[r]?.[c] },
        displayName(cell, 160)))))));
}

function note(id: string, text: string): HTMLElement {
  return h("p", { class: "note", id }, displayName(text, 500));
}

export class SessionPanes {
  readonly element: HTMLElement;
  private readonly filter = h("input", { type: "search", id: "panes-filter",
    placeholder: "filter kernels and lines by name", title: "a part of a kernel's or a line's name, any case" });
  private readonly kernels = h("section", { id: "kernels-pane" });
  private readonly devices = h("section", { id: "devices-pane" });
  private readonly stalls = h("section", { id: "stalls-pane", hidden: "" });
  private readonly sorts = new Map<string, SortKey>(); // by table id
  private readonly finalAnswers = new FinalAnswers();
  private top: TopAnswer | null = null; // the answers shown, drawn again on a sort or a filter
  private stallsAnswer: StallsAnswer | null = null;
  private generation = 0;
  private stopped = false;
  private selectedLine: string | null = null; // the line whose instructions are shown
  private fullNames = false; // the tree's choice, which the kernels' names follow

  constructor(private readonly session: string) {
    this.element = h("div", { class: "panes" }, h("div", { class: "controls" }, this.filter),
      this.kernels, this.devices, this.stalls);
    this.filter.addEventListener("input", () => this.draw());
  }

  stop(): void {
    this.stopped = true;
  }

  // Reads both answers again (an ended session's from what it kept); a failure shows in its
  // pane, and the other panes stay.
  async read(fullNames: boolean): Promise<void> {
    const mine = ++this.generation;
    this.fullNames = fullNames;
    const sass = this.selectedLine !== null;
    const [top, stalls] = await Promise.allSettled([
      this.finalAnswers.read(`top names=${fullNames}`, () => fetchTop(this.session, fullNames)),
      this.finalAnswers.read(`stalls sass=${sass}`, () => fetchStalls(this.session, sass), samplesNoPcs)]);
    if (this.stopped || mine !== this.generation) return;
    if (top.status === "fulfilled") {
      this.top = top.value;
    } else {
      this.top = null;
      this.showFailure(this.kernels, "Kernels", top.reason);
    }
    if (stalls.status === "fulfilled") {
      this.stallsAnswer = stalls.value;
    } else {
      this.stallsAnswer = null;
      this.stalls.hidden = false;
      this.showFailure(this.stalls, "Stalls", stalls.reason);
    }
    this.draw();
    this.element.setAttribute("data-reads", String(Number(this.element.getAttribute("data-reads") ?? 0) + 1));
  }

  // Draws the answers shown with the sort and filter chosen now.
  private draw(): void {
    if (this.top !== null) {
      this.showKernels(this.top);
      this.showDevices(this.top);
    }
    if (this.stallsAnswer !== null) this.showStalls(this.stallsAnswer);
  }

  private showFailure(pane: HTMLElement, title: string, reason: unknown): void {
    clear(pane);
    append(pane, h("h2", {}, title), note(`${pane.id}-error`,
      `not read: ${String((reason as Error)?.message ?? reason)}`));
  }

  // A table whose headings sort it (a click; again reverses; the arrow says how) and whose rows
  // are those the filter keeps; a note instead when it keeps none.
  private sortableTable(id: string, headers: string[], rows: DrawnRow[], nameColumns: number[]): HTMLElement {
    const sort = this.sorts.get(id) ?? null;
    const shown = shownRows(rows, sort, this.filter.value);
    const headings = headers.map((text, column) => {
      const th = h("th", { class: "sortable", "data-column": String(column), title: "sort by this column",
        "aria-sort": sort?.column === column ? (sort.descending ? "descending" : "ascending") : undefined },
      text + sortMark(sort, column));
      th.addEventListener("click", () => {
        this.sorts.set(id, nextSort(sort, column));
        this.draw();
      });
      return th;
    });
    const body = h("tbody", {}, ...shown.map((row) => {
      const tr = h("tr", {}, ...row.cells.map((cell, c) =>
        h("td", { class: nameColumns.includes(c) ? "name" : undefined, title: row.titles?.[c] },
          displayName(cell, 160))));
      const line = row.line;
      if (line !== undefined) {
        tr.classList.add("stall-line");
        tr.setAttribute("title", "show its SASS instructions");
        if (line === this.selectedLine) tr.classList.add("selected");
        tr.addEventListener("click", () => {
          this.selectedLine = line;
          void this.read(this.fullNames);
        });
      }
      return tr;
    }));
    const drawn = h("table", { id, class: "grid" }, h("thead", {}, h("tr", {}, ...headings)), body);
    if (shown.length > 0 || rows.length === 0) return drawn;
    return h("div", {}, drawn, note(`${id}-filter-note`, `none of the ${rows.length} matches "${this.filter.value}"`));
  }

  private showKernels(answer: TopAnswer): void {
    clear(this.kernels);
    append(this.kernels, h("h2", {}, "Kernels"));
    const kernels = kernelsOf(answer);
    if (kernels.length === 0) {
      append(this.kernels, note("kernels-note", String(answer?.note ?? "no GPU kernels in this profile")));
      return;
    }
    const rows: DrawnRow[] = kernels.map((k) => ({ ...kernelRow(k), titles: [titleText(String(k.full_name ?? k.name))] }));
    append(this.kernels,
      h("p", { class: "note" }, "The heaviest kernels over all call paths, as protonctl top lists them; " +
        "the verdict compares each with its device's peaks (Devices)."),
      this.sortableTable("kernels", KERNEL_HEADERS, rows, [0]));
  }

  private showDevices(answer: TopAnswer): void {
    clear(this.devices);
    append(this.devices, h("h2", {}, "Devices"));
    const devices = Array.isArray(answer?.devices) ? answer.devices : [];
    if (devices.length === 0) {
      append(this.devices, note("devices-note", "this session recorded no GPU devices"));
      return;
    }
    const headers = Array.isArray(answer.device_columns) ? answer.device_columns.map(String) : [];
    const rows = devices.map((d) => deviceRow([...(Array.isArray(d.text) ? d.text.map(String) : []), String(d.peaks ?? "")]));
    append(this.devices, this.sortableTable("devices", [...headers, "peaks (protonctl top)"], rows, [2]));
  }

  private showStalls(answer: StallsAnswer): void {
    clear(this.stalls);
    this.stalls.hidden = !hasStalls(answer);
    if (!hasStalls(answer)) return;
    const headers = Array.isArray(answer.columns) ? answer.columns.map(String) : [];
    const lineColumn = headers.length - 1;
    const rows: DrawnRow[] = answer.lines.map((l) => ({ ...stallRow(l, lineColumn), line: String(l.line) }));
    append(this.stalls, h("h2", {}, "Stalls"),
      h("p", { class: "note" }, "The sampled source lines with the most stalled samples (protonctl top --stalls); " +
        "click a line for its SASS instructions."),
      this.sortableTable("stalls", headers, rows, [lineColumn]));
    if (this.selectedLine !== null) this.showInstructions(answer, this.selectedLine);
  }

  private showInstructions(answer: StallsAnswer, line: string): void {
    const instructions = instructionsOf(answer, line);
    const box = h("div", { id: "instructions-pane" },
      h("h3", { title: titleText(line) }, `SASS instructions of ${displayName(line, 160)}`));
    if (instructions === null) {
      append(box, note("instructions-note", "reading its instructions\u2026"));
    } else if (instructions.length === 0) {
      append(box, note("instructions-note", "no sampled instruction of this line"));
    } else {
      append(box, table("instructions", INSTRUCTION_HEADERS, instructions.map(instructionCells), [1]));
    }
    for (const text of Array.isArray(answer.instruction_notes) ? answer.instruction_notes : []) {
      append(box, note("instructions-notes", `note: ${String(text)}`));
    }
    append(this.stalls, box);
  }
}
