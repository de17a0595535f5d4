// The session page's Kernels, Devices and Stalls panes, their pure parts: what each cell says,
// from /api/top's and /api/stalls' answers (docs/web.md). Every value is checked here, where it
// is read: the answers carry names from profiled programs.

import type { StalledInstruction, StallsAnswer, TopAnswer, TopKernel } from "./api_types";

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
