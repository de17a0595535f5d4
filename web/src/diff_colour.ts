// Colours of a diff (A minus B): red where A has more (a regression when the column is time),
// green where A has less, grey where they are equal or the cell is blank. Pure (tested in
// web/test/diff_colour.test.ts).

export type DiffSign = "pos" | "neg" | "zero";

export function diffSign(value: number | null): DiffSign {
  if (value === null || !Number.isFinite(value) || value === 0) return "zero";
  return value > 0 ? "pos" : "neg";
}

// The fill of a differential flame frame: the stronger the colour, the larger the change
// relative to the largest change in the graph.
export function diffFill(value: number | null, maxMagnitude: number): string {
  const sign = diffSign(value);
  if (sign === "zero" || !(maxMagnitude > 0)) return "rgb(200,200,200)";
  const strength = Math.min(1, Math.abs(value as number) / maxMagnitude);
  const fade = Math.round(210 - 160 * strength); // 210: pale, 50: saturated
  return sign === "pos" ? `rgb(230,${fade},${fade})` : `rgb(${fade},200,${fade})`;
}

export function maxMagnitude(values: Iterable<number | null>): number {
  let max = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  return max;
}
