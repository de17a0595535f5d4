// #/diff/A/B: A's tree minus B's (protonctl tree A --diff B): positive values (A has more) in
// red, negative in green, and a differential flame graph.

import { fetchDiff } from "../api";
import { h } from "../dom";
import { sessionFacts } from "./session";
import { showTreePage } from "./tree_page";

export function showDiff(view: HTMLElement, a: string, b: string): () => void {
  return showTreePage(view, {
    diff: true,
    load: (options) => fetchDiff(a, b, options),
    header: (answer) => h("div", {},
      h("h1", {}, `Session ${a} minus session ${b}`),
      sessionFacts(answer.session, "A: "),
      sessionFacts(answer.base, "B: "),
      h("p", { class: "legend" }, h("span", { class: "pos" }, "red: A has more"), " ",
        h("span", { class: "neg" }, "green: A has less"),
        " (the flame graph is sized by |A \u2212 B|)")),
  });
}
