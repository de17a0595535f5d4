// #/job/JOB: a job's ranks side by side (protonctl tree --job JOB over this node, or over every
// node of protonctl --hosts ... ui): each frame's total, min, median and max over the ranks and
// its slowest rank, a straggler's frames marked (job.ts's rule), protonctl job's verdict (or why
// there is none), and a link to each rank's session. Read again every 2 s while a session of the
// job runs (tree_page.ts's live refresh, which keeps the open frames, the sort and the search).

import { fetchJob } from "../api";
import type { JobAnswer, TreeAnswer } from "../api_types";
import { append, h } from "../dom";
import {
  jobIsRunning, STRAGGLER_MIN_SHARE, STRAGGLER_RATIO, stragglerFrames, verdictText, whereRanksAre,
} from "../job";
import { displayName, titleText } from "../text";
import { listOf, showTreePage } from "./tree_page";

function rankLinks(answer: JobAnswer): HTMLElement {
  const list = h("ul", { id: "job-ranks" });
  for (const rank of Array.isArray(answer.ranks) ? answer.ranks : []) {
    const session = String(rank.session ?? "");
    const label = `rank ${rank.rank === "" ? "?" : displayName(String(rank.rank), 40)}`;
    const where = ` (session ${session} at ${displayName(String(rank.host ?? ""), 100)})`;
    const link = /^\d+$/.test(session)
      ? h("a", { href: "#/session/" + session, "data-rank": String(rank.rank) }, label)
      : label;
    append(list, h("li", {}, link, where));
  }
  return list;
}

function verdict(answer: JobAnswer): HTMLElement {
  if (typeof answer.verdict === "string") {
    return h("div", {}, h("h2", {}, "Who the others wait for (protonctl job)"),
      h("pre", { id: "job-verdict", class: "verdict" }, verdictText(answer.verdict)));
  }
  return h("p", { id: "job-no-verdict", class: "note" },
    "No verdict: ", displayName(String(answer.no_verdict ?? ""), 2000));
}

export function showJob(view: HTMLElement, job: string): () => void {
  return showTreePage(view, {
    diff: false,
    load: (options) => fetchJob(job, options),
    live: (wire) => jobIsRunning(wire as JobAnswer),
    marked: stragglerFrames,
    header: (wire: TreeAnswer) => {
      const answer = wire as JobAnswer;
      const ranks = Array.isArray(answer.ranks) ? answer.ranks.length : 0;
      return h("div", {},
        h("h1", { title: titleText(job) }, `Job ${displayName(job, 100)}`),
        h("p", { class: "facts" }, `${ranks} ${ranks === 1 ? "rank" : "ranks"} ${whereRanksAre(answer)}, `,
          `${displayName(String(answer.metric ?? ""), 100)} per rank:`),
        rankLinks(answer),
        listOf("Left out", answer.problems, "problems"),
        listOf("Problems of its sessions", (Array.isArray(answer.sessions) ? answer.sessions : [])
          .flatMap((session) => (Array.isArray(session.problems) ? session.problems : [])), "problems"),
        verdict(answer),
        h("p", { class: "legend" }, h("span", { class: "straggler-mark" }, "straggler"),
          ` marks a frame whose max is at least ${STRAGGLER_RATIO}\u00d7 its median over the ranks that ` +
          `have it (two or more), by at least ${STRAGGLER_MIN_SHARE * 100}% of the largest max.`));
    },
  });
}
