// #/session/ID: one session's call tree (table and flame graph), its export downloads, and the
// panes of its kernels, devices and stalls (panes.ts).

import { EXPORT_FORMATS, exportUrl, fetchTree } from "../api";
import type { Session } from "../api_types";
import { h } from "../dom";
import { displayName, titleText } from "../text";
import { SessionPanes } from "./panes";
import { showTreePage } from "./tree_page";

export function sessionFacts(session: Session | undefined, label: string): HTMLElement {
  const s = session ?? ({ id: "?" } as Session);
  const name = String(s.name ?? "");
  return h("div", { class: "facts" },
    h("span", { class: "label" }, label),
    h("strong", { title: titleText(name) }, `session ${String(s.id)} ${displayName(name, 100)}`),
    ` ${String(s.state ?? "")}, ${String(s.records ?? "0")} records, ${String(s.dropped_records ?? "0")} dropped`,
    s.mode ? `, mode ${displayName(String(s.mode), 100)}` : "",
    s.job ? `, job ${displayName(String(s.job), 100)}` : "");
}

export function showSession(view: HTMLElement, id: string): () => void {
  const panes = new SessionPanes(id);
  const stopTree = showTreePage(view, {
    diff: false,
    load: (options) => fetchTree(id, options),
    live: (answer) => answer.session?.state === "RUNNING",
    header: (answer) => h("div", {},
      h("h1", {}, `Session ${id}`),
      sessionFacts(answer.session, ""),
      h("div", { class: "exports" }, "Export: ",
        ...EXPORT_FORMATS.map((format) => h("a", { href: exportUrl(id, format), download: "", class: "export" }, format)))),
    panes: { element: panes.element, read: (options) => void panes.read(options.fullNames) },
  });
  return () => {
    stopTree();
    panes.stop();
  };
}
