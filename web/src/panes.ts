// The session page's Kernels, Devices and Stalls panes, their pure parts: what each cell says,
// from /api/top's and /api/stalls' answers (docs/web.md). Every value is checked here, where it
// is read: the answers carry names from profiled programs.

import type { Session, StalledInstruction, StalledLine, StallsAnswer, TopAnswer, TopKernel } from "./api_types";
import { cellKey, type PaneRow } from "./pane_rows";

// "compute bound, 50.0% of peak", or why there is no verdict.
export function verdictText(kernel: TopKernel): string {
  const percent = kernel.percent_of_peak;
  if ((kernel.bound === "compute" || kernel.bound === "memory") && typeof percent === "number") {
    return `${kernel.bound} bound, ${percent.toFixed(1)}% of peak`;
  }
  return `no verdict: ${String(kernel.no_verdict ?? "unknown")}`;
}

// The achieved rates as `protonctl top` prints them: "494.7 TFLOP/s, 335.0 GB/s", or "-".
export function rateText(kernel: TopKernel): string {
  const text = Array.isArray(kernel.text) ? kernel.text : [];
  const rates: string[] = [];
  if (kernel.tflop_per_s !== null && text[4] !== undefined) rates.push(`${String(text[4])} TFLOP/s`);
  if (kernel.gbyte_per_s !== null && text[5] !== undefined) rates.push(`${String(text[5])} GB/s`);
  return rates.length > 0 ? rates.join(", ") : "-";
}

export const KERNEL_HEADERS = ["kernel", "time (ms)", "share", "count", "achieved", "verdict"];

// A Kernels row: the name, then `protonctl top`'s time, share and count cells, the rates and the
// verdict.
export function kernelCells(kernel: TopKernel): string[] {
  const text = Array.isArray(kernel.text) ? kernel.text.map(String) : [];
  return [String(kernel.name), text[0] ?? "-", `${text[1] ?? "-"}%`, text[2] ?? "-", rateText(kernel),
    verdictText(kernel)];
}

const numberOrNull = (value: unknown): number | null => (typeof value === "number" ? value : null);

// A Kernels row with its sort keys (the values behind the cells: time, share, count, TFLOP/s,
// percent of peak; a kernel without a verdict sorts last) and its names for the filter.
export function kernelRow(kernel: TopKernel): PaneRow {
  return {
    cells: kernelCells(kernel),
    keys: [String(kernel.name), numberOrNull(kernel.time_ns), numberOrNull(kernel.share),
      numberOrNull(kernel.count), numberOrNull(kernel.tflop_per_s), numberOrNull(kernel.percent_of_peak)],
    names: [String(kernel.name), String(kernel.full_name ?? kernel.name)],
  };
}

// A Stalls row: `top --stalls`' cells, keyed by their text (numbers as numbers), the line by its
// text; the filter looks in the line.
export function stallRow(line: StalledLine, lineColumn: number): PaneRow {
  const cells = Array.isArray(line.text) ? line.text.map(String) : [];
  return {
    cells,
    keys: cells.map((cell, i) => (i === lineColumn ? cell : cellKey(cell))),
    names: [String(line.line)],
  };
}

// A Devices row: `protonctl devices`' cells and the peaks line, keyed by their text; the filter
// does not apply to devices (it names kernels and lines).
export function deviceRow(cells: string[]): PaneRow {
  return { cells, keys: cells.map(cellKey), names: [] };
}

// The answers that cannot change, by what was asked: those of a session that has ended, and those
// `unchanging` says will not (a running session's stalls when it records no PC samples). Reading
// one again (a refresh, a click on a stalled line, the names choice, the tree's metrics) takes it
// from here rather than from protond.
export class FinalAnswers {
  private readonly kept = new Map<string, unknown>();

  async read<T extends { session?: Session }>(asked: string, fetch: () => Promise<T>,
    unchanging: (answer: T) => boolean = () => false): Promise<T> {
    if (this.kept.has(asked)) return this.kept.get(asked) as T;
    const answer = await fetch();
    const state = answer?.session?.state;
    if ((typeof state === "string" && state !== "RUNNING") || unchanging(answer)) this.kept.set(asked, answer);
    return answer;
  }
}

// Whether the answer's session was started without PC sampling (its mode is not pcsampling[:...]):
// then no sample ever reaches it, and its stalls stay none while it runs.
export function samplesNoPcs(answer: { session?: Session }): boolean {
  const mode = answer?.session?.mode;
  return typeof answer?.session?.state === "string" && !(typeof mode === "string" && mode.startsWith("pcsampling"));
}

export function kernelsOf(answer: TopAnswer): TopKernel[] {
  return Array.isArray(answer?.kernels) ? answer.kernels : [];
}

// Whether the session has PC samples: only then is there a Stalls pane.
export function hasStalls(answer: StallsAnswer | null): boolean {
  return answer !== null && Array.isArray(answer.lines) && answer.lines.length > 0;
}

// The SASS instructions of `line` in a sass=1 answer; null where the answer has none for it.
export function instructionsOf(answer: StallsAnswer, line: string): StalledInstruction[] | null {
  const found = Array.isArray(answer?.lines) ? answer.lines.find((l) => l.line === line) : undefined;
  return found && Array.isArray(found.instructions) ? found.instructions : null;
}

export const INSTRUCTION_HEADERS = ["offset", "SASS", "samples", "stalled", "top reasons"];

export function instructionCells(instruction: StalledInstruction): string[] {
  return [String(instruction.offset), instruction.sass ? String(instruction.sass) : "(no text)",
    String(instruction.samples), String(instruction.stalled), String(instruction.reasons_text ?? "-")];
}
