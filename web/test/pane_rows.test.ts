import assert from "node:assert/strict";
import { test } from "node:test";
import { cellKey, matchesFilter, nextSort, type PaneRow, shownRows, sortMark } from "../src/pane_rows";

function row(name: string, time: number | null, verdict: string | null): PaneRow {
  return { cells: [name, String(time ?? "-"), verdict ?? "-"], keys: [name, time, verdict], names: [name, `ns::${name}(int)`] };
}

const ROWS = [row("nvjet", 200, "compute"), row("Memcpy HtoD", null, null), row("elementwise", 50, "memory"),
  row("NVJET_small", 50, null)];
const names = (rows: PaneRow[]) => rows.map((r) => r.cells[0]);

test("a heading's clicks: a new column descending, the same again reversed, the arrow says which", () => {
  const first = nextSort(null, 1);
  assert.deepEqual(first, { column: 1, descending: true });
  assert.deepEqual(nextSort(first, 1), { column: 1, descending: false });
  assert.deepEqual(nextSort(nextSort(first, 1), 1), { column: 1, descending: true });
  assert.deepEqual(nextSort(first, 0), { column: 0, descending: true });
  assert.equal(sortMark(first, 1), " \u25bc");
  assert.equal(sortMark({ column: 1, descending: false }, 1), " \u25b2");
  assert.equal(sortMark(first, 0), "");
  assert.equal(sortMark(null, 0), "");
});

test("sorted by a number column: either way, blanks last, ties in the server's order", () => {
  assert.deepEqual(names(shownRows(ROWS, { column: 1, descending: true }, "")),
    ["nvjet", "elementwise", "NVJET_small", "Memcpy HtoD"]);
  assert.deepEqual(names(shownRows(ROWS, { column: 1, descending: false }, "")),
    ["elementwise", "NVJET_small", "nvjet", "Memcpy HtoD"]);
  assert.deepEqual(names(shownRows(ROWS, null, "")), names(ROWS));
});

test("sorted by a text column, and the rows not changed in place", () => {
  assert.deepEqual(names(shownRows(ROWS, { column: 0, descending: false }, "")),
    ["elementwise", "Memcpy HtoD", "nvjet", "NVJET_small"]);
  assert.deepEqual(names(shownRows(ROWS, { column: 2, descending: true }, "")),
    ["elementwise", "nvjet", "Memcpy HtoD", "NVJET_small"]);
  assert.deepEqual(names(ROWS), ["nvjet", "Memcpy HtoD", "elementwise", "NVJET_small"]);
});

test("the filter: a substring of any name, any case; blank keeps all", () => {
  assert.deepEqual(names(shownRows(ROWS, null, "nvJet")), ["nvjet", "NVJET_small"]);
  assert.deepEqual(names(shownRows(ROWS, { column: 1, descending: false }, " jet ")), ["NVJET_small", "nvjet"]);
  assert.deepEqual(names(shownRows(ROWS, null, "ns::elem")), ["elementwise"]); // the full name
  assert.deepEqual(names(shownRows(ROWS, null, "")), names(ROWS));
  assert.deepEqual(shownRows(ROWS, null, "<img"), []);
  assert.equal(matchesFilter({ cells: [], keys: [], names: [] }, "x"), false);
  assert.equal(matchesFilter({ cells: [], keys: [], names: [] }, ""), true);
});

test("a cell's key: its leading number, else its text, blank or '-' none", () => {
  assert.equal(cellKey("77.5"), 77.5);
  assert.equal(cellKey("1,024"), 1024);
  assert.equal(cellKey("85.3%"), 85.3);
  assert.equal(cellKey("-3"), -3);
  assert.equal(cellKey("sm_90"), "sm_90");
  assert.equal(cellKey("long_scoreboard 90%"), "long_scoreboard 90%");
  assert.equal(cellKey("-"), null);
  assert.equal(cellKey("  "), null);
});
