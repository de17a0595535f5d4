// #/range-diff?QUERY: two ranges of always-on windows, each merged, the later minus the earlier
// (`protonctl tree --pid P --since A --diff --since B --until C`): the table and differential
// flame graph of #/diff, under both ranges' lines and the shares of GPU time that moved.

import { fetchRangeDiff } from "../api";
import { h } from "../dom";
import { parseRangeDiff, rangeDiffQuery } from "../history";
import { displayName } from "../text";
import { showTreePage } from "./tree_page";

// protonctl's lines of what moved, each shown as text (names escaped as everywhere), the line
// breaks kept.
function shiftLines(text: string): string {
  return text.replace(/\n+$/, "").split("\n").map((line) => displayName(line, 2000)).join("\n");
}

export function showRangeDiff(view: HTMLElement, query: string): () => void {
  const { selection, base } = parseRangeDiff(query);
  const apiQuery = rangeDiffQuery(selection, base);
  return showTreePage(view, {
    diff: true,
    load: (options) => fetchRangeDiff(apiQuery, options),
    header: (answer) => h("div", {},
      h("h1", {}, "What changed between two ranges of always-on windows"),
      h("p", { id: "range-now" }, "Now: ", displayName(String(answer.range ?? "").trim(), 500)),
      h("p", { id: "range-then" }, "Then: ", displayName(String(answer.base_range ?? "").trim(), 500)),
      h("pre", { id: "range-shifts" }, shiftLines(String(answer.shifts ?? ""))),
      h("p", { class: "legend" }, h("span", { class: "pos" }, "red: now has more"), " ",
        h("span", { class: "neg" }, "green: now has less"),
        " (the flame graph is sized by |now \u2212 then|)")),
  });
}
