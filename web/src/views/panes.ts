// The session page's Kernels, Devices and Stalls panes (docs/web.md): /api/top's kernels with
// their roofline verdicts and the session's devices, and, for a PC-sampled session,
// /api/stalls' lines; a click on a line asks for its SASS instructions (sass=1) and shows them
// under the table. read() is called with each answer of the tree (tree_page.ts), so the panes
// follow a running session's 2 s refresh; an answer overtaken by a later read is dropped.

import { fetchStalls, fetchTop } from "../api";
import type { StallsAnswer, TopAnswer } from "../api_types";
import { append, clear, h } from "../dom";
import {
  hasStalls,
  INSTRUCTION_HEADERS,
  instructionCells,
  instructionsOf,
  KERNEL_HEADERS,
  kernelCells,
  kernelsOf,
} from "../panes";
import { displayName, titleText } from "../text";

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
  private readonly kernels = h("section", { id: "kernels-pane" });
  private readonly devices = h("section", { id: "devices-pane" });
  private readonly stalls = h("section", { id: "stalls-pane", hidden: "" });
  private generation = 0;
  private stopped = false;
  private selectedLine: string | null = null; // the line whose instructions are shown
  private fullNames = false; // the tree's choice, which the kernels' names follow

  constructor(private readonly session: string) {
    this.element = h("div", { class: "panes" }, this.kernels, this.devices, this.stalls);
  }

  stop(): void {
    this.stopped = true;
  }

  // Reads both answers again; a failure shows in its pane, and the other panes stay.
  async read(fullNames: boolean): Promise<void> {
    const mine = ++this.generation;
    this.fullNames = fullNames;
    const sass = this.selectedLine !== null;
    const [top, stalls] = await Promise.allSettled([fetchTop(this.session, fullNames),
      fetchStalls(this.session, sass)]);
    if (this.stopped || mine !== this.generation) return;
    if (top.status === "fulfilled") {
      this.showKernels(top.value);
      this.showDevices(top.value);
    } else {
      this.showFailure(this.kernels, "Kernels", top.reason);
    }
    if (stalls.status === "fulfilled") {
      this.showStalls(stalls.value);
    } else {
      this.stalls.hidden = false;
      this.showFailure(this.stalls, "Stalls", stalls.reason);
    }
    this.element.setAttribute("data-reads", String(Number(this.element.getAttribute("data-reads") ?? 0) + 1));
  }

  private showFailure(pane: HTMLElement, title: string, reason: unknown): void {
    clear(pane);
    append(pane, h("h2", {}, title), note(`${pane.id}-error`,
      `not read: ${String((reason as Error)?.message ?? reason)}`));
  }

  private showKernels(answer: TopAnswer): void {
    clear(this.kernels);
    append(this.kernels, h("h2", {}, "Kernels"));
    const kernels = kernelsOf(answer);
    if (kernels.length === 0) {
      append(this.kernels, note("kernels-note", String(answer?.note ?? "no GPU kernels in this profile")));
      return;
    }
    append(this.kernels,
      h("p", { class: "note" }, "The heaviest kernels over all call paths, as protonctl top lists them; " +
        "the verdict compares each with its device's peaks (Devices)."),
      table("kernels", KERNEL_HEADERS, kernels.map(kernelCells), [0],
        kernels.map((k) => [titleText(String(k.full_name ?? k.name))])));
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
    append(this.devices,
      table("devices", [...headers, "peaks (protonctl top)"],
        devices.map((d) => [...(Array.isArray(d.text) ? d.text.map(String) : []), String(d.peaks ?? "")]),
        [2]));
  }

  private showStalls(answer: StallsAnswer): void {
    clear(this.stalls);
    this.stalls.hidden = !hasStalls(answer);
    if (!hasStalls(answer)) return;
    const headers = Array.isArray(answer.columns) ? answer.columns.map(String) : [];
    const lines = answer.lines;
    const lineTable = table("stalls", headers, lines.map((l) => (Array.isArray(l.text) ? l.text.map(String) : [])),
      [headers.length - 1]);
    lineTable.querySelectorAll("tbody tr").forEach((row, i) => {
      const line = String(lines[i].line);
      row.classList.add("stall-line");
      row.setAttribute("title", "show its SASS instructions");
      if (line === this.selectedLine) row.classList.add("selected");
      row.addEventListener("click", () => {
        this.selectedLine = line;
        void this.read(this.fullNames);
      });
    });
    append(this.stalls, h("h2", {}, "Stalls"),
      h("p", { class: "note" }, "The sampled source lines with the most stalled samples (protonctl top --stalls); " +
        "click a line for its SASS instructions."),
      lineTable);
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
