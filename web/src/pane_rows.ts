// The session page's panes as tables the user sorts and filters (docs/web.md): which rows a pane
// shows for a sort (a column, descending or ascending) and a filter (a name substring, any case),
// and what the heading says. Pure: the panes (views/panes.ts) keep the choice across refreshes and
// draw what this returns.

import type { SortKey } from "./tree";

// One row of a pane: its cells as shown, a key per cell to sort by (a number, text, or null where
// the cell is blank or "-"), and the names the filter looks in.
export interface PaneRow {
  cells: string[];
  keys: (number | string | null)[];
  names: string[];
}

// A click on a heading: a new column sorts descending (the heaviest first, as the panes come);
// the same column again reverses.
export function nextSort(sort: SortKey | null, column: number): SortKey {
  if (sort?.column !== column) return { column, descending: true };
  return { column, descending: !sort.descending };
}

// What a heading adds to its text: the sort's arrow, or nothing.
export function sortMark(sort: SortKey | null, column: number): string {
  if (sort?.column !== column) return "";
  return sort.descending ? " \u25bc" : " \u25b2";
}

// Whether any of the row's names holds `filter`, whatever the case; an empty filter holds all.
export function matchesFilter(row: PaneRow, filter: string): boolean {
  const wanted = filter.trim().toLowerCase();
  return wanted === "" || row.names.some((name) => name.toLowerCase().includes(wanted));
}

// Numbers before text, each in its order; null last whatever the direction.
function compareKeys(a: number | string | null, b: number | string | null, sign: number): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return sign * (a - b);
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return sign * a.localeCompare(b);
}

// The rows that pass the filter, in the sort's order (ties, and no sort, in the server's order).
export function shownRows<T extends PaneRow>(rows: T[], sort: SortKey | null, filter: string): T[] {
  const kept = rows.map((row, index) => ({ row, index })).filter(({ row }) => matchesFilter(row, filter));
  if (sort) {
    const sign = sort.descending ? -1 : 1;
    kept.sort((a, b) => compareKeys(a.row.keys[sort.column] ?? null, b.row.keys[sort.column] ?? null, sign) ||
      a.index - b.index);
  }
  return kept.map(({ row }) => row);
}

// A cell's sort key from its text: its leading number ("77.5", "1,024", "85.3%"), else the text;
// null for a blank or "-".
export function cellKey(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === "" || trimmed === "-") return null;
  const number = /^-?[\d,]*\.?\d+(e[+-]?\d+)?/i.exec(trimmed);
  if (number) return Number(number[0].replaceAll(",", ""));
  return trimmed;
}
