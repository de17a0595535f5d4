// #/sessions: every session of the user, filtered by a text box, refreshed every 2 s while any
// session runs (the table body is replaced; the filter and the diff choice stay). A session's
// job links to its Job page (#/job/JOB).

import { fetchSessions } from "../api";
import type { Session, SessionProcess } from "../api_types";
import { append, clear, clearError, h, showError } from "../dom";
import { jobOfSession } from "../job";
import { displayName, titleText } from "../text";

const REFRESH_MS = 2000;

function ranksOf(processes: SessionProcess[]): string {
  const ranks = new Set<string>();
  let world = "";
  for (const p of processes) {
    if (p.job?.rank) ranks.add(p.job.rank);
    if (p.job?.world_size) world = p.job.world_size;
  }
  if (ranks.size === 0) return "";
  const sorted = [...ranks].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  return sorted.join(",") + (world ? " of " + world : "");
}

function processCell(processes: SessionProcess[]): HTMLTableCellElement {
  const cell = h("td", { class: "processes" });
  for (const p of processes.slice(0, 8)) {
    const command = p.command ?? "";
    const line = `${p.pid ?? "?"} ${displayName(command, 80)}${p.exited ? " (exited)" : ""}`;
    append(cell, h("div", { title: titleText(command) }, line));
  }
  if (processes.length > 8) append(cell, h("div", {}, `and ${processes.length - 8} more`));
  return cell;
}

function cells(session: Session): { texts: string[]; row: HTMLTableRowElement } {
  const processes = Array.isArray(session.processes) ? session.processes : [];
  const id = String(session.id ?? "");
  const name = String(session.name ?? "");
  const texts = [
    id, name, String(session.state ?? ""), ranksOf(processes), String(session.records ?? "0"),
    String(session.dropped_records ?? "0"), String(session.mode ?? ""), jobOfSession(session),
    session.always_on_window ? "yes" : "",
  ];
  const link = /^\d+$/.test(id) ? h("a", { href: "#/session/" + id }, id) : id;
  const row = h("tr", { "data-id": id, class: session.state === "RUNNING" ? "running" : undefined },
    h("td", { class: "pick" }, h("input", { type: "radio", name: "diff-a", value: id, title: "diff: A" }),
      h("input", { type: "radio", name: "diff-b", value: id, title: "diff: B" })),
    h("td", { class: "num" }, link),
    h("td", { class: "name", title: titleText(name) }, displayName(name, 80)),
    h("td", { class: "state" }, texts[2]),
    processCell(processes),
    h("td", {}, texts[3]),
    h("td", { class: "num" }, texts[4]),
    h("td", { class: Number(texts[5]) > 0 ? "num dropped" : "num" }, texts[5]),
    h("td", {}, displayName(texts[6], 80)),
    h("td", { class: "job" }, texts[7] === "" ? "" : h("a", { href: "#/job/" + encodeURIComponent(texts[7]),
      title: "this job's ranks side by side" }, displayName(texts[7], 80))),
    h("td", {}, texts[8]));
  for (const p of processes) texts.push(String(p.pid ?? ""), String(p.command ?? "").slice(0, 1000));
  return { texts: texts.map((t) => t.toLowerCase()), row };
}

const HEADERS = ["A/B", "ID", "Name", "State", "Processes", "Ranks", "Records", "Dropped", "Mode",
  "Job", "Always-on window"];

export function showSessions(view: HTMLElement): () => void {
  let stopped = false;
  let timer: number | undefined;
  const filter = h("input", { type: "search", id: "session-filter", placeholder: "filter sessions" });
  const compare = h("a", { id: "compare", class: "button", hidden: "" }, "Compare A with B");
  const status = h("span", { id: "sessions-status", class: "status" });
  const body = h("tbody");
  const table = h("table", { id: "sessions", class: "grid" },
    h("thead", {}, h("tr", {}, ...HEADERS.map((t) => h("th", {}, t)))), body);
  let rows: { texts: string[]; row: HTMLTableRowElement }[] = [];

  const applyFilter = () => {
    const needle = filter.value.toLowerCase();
    for (const { texts, row } of rows) row.hidden = needle !== "" && !texts.some((t) => t.includes(needle));
  };
  const pick = (group: string) =>
    (body.querySelector(`input[name="${group}"]:checked`) as HTMLInputElement | null)?.value ?? "";
  const updateCompare = () => {
    const a = pick("diff-a");
    const b = pick("diff-b");
    compare.hidden = !(a && b && a !== b);
    if (!compare.hidden) compare.setAttribute("href", `#/diff/${a}/${b}`);
  };

  const load = async () => {
    const chosen = [pick("diff-a"), pick("diff-b")];
    try {
      const answer = await fetchSessions();
      if (stopped) return;
      clearError();
      const sessions = Array.isArray(answer?.sessions) ? answer.sessions : [];
      rows = sessions.map(cells);
      clear(body);
      for (const { row } of rows) body.appendChild(row);
      ["diff-a", "diff-b"].forEach((group, i) => {
        if (!/^\d+$/.test(chosen[i])) return;
        const input = body.querySelector(`input[name="${group}"][value="${chosen[i]}"]`);
        if (input) (input as HTMLInputElement).checked = true;
      });
      applyFilter();
      updateCompare();
      const running = sessions.some((s) => s.state === "RUNNING");
      status.textContent = `${sessions.length} sessions` +
        (running ? `, refreshing every ${REFRESH_MS / 1000} s` : "") +
        `, read ${new Date().toLocaleTimeString()}`;
      if (running) timer = window.setTimeout(load, REFRESH_MS);
    } catch (e) {
      if (stopped) return;
      showError(String((e as Error).message ?? e));
      timer = window.setTimeout(load, REFRESH_MS * 2);
    }
  };

  filter.addEventListener("input", applyFilter);
  body.addEventListener("change", updateCompare);
  const history = h("a", { id: "history-link", href: "#/history" }, "History of the always-on windows");
  append(view, h("h1", {}, "Sessions"), h("div", { class: "controls" }, filter, compare, status, history), table);
  void load();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
  };
}
