// The Job page's pure parts: which frames of /api/job's spread mark a straggler, the verdict as
// shown, whether the page reads the job again, and the job a session belongs to. No DOM, so node --test runs them (web/test/job.test.ts).

import type { JobAnswer, Session } from "./api_types";
import { displayName } from "./text";
import type { Tree } from "./tree";

// A frame is a straggler's when one rank takes at least STRAGGLER_RATIO times the median of the
// ranks that have it (max >= 1.5 x median), at least two ranks have it, and the excess (max -
// median) is at least STRAGGLER_MIN_SHARE of the largest max of any frame: a few microseconds
// more in a tiny frame are noise, not a straggler.
export const STRAGGLER_RATIO = 1.5;
export const STRAGGLER_MIN_SHARE = 0.01;

// The spread's columns by their headers (view/tree/job_tree.h SpreadColumns).
function columnOf(tree: Tree, header: string): number {
  return tree.columns.indexOf(header);
}

export function stragglerFrames(tree: Tree): Set<number> {
  const median = columnOf(tree, "median");
  const max = columnOf(tree, "max");
  const ranks = columnOf(tree, "ranks");
  const marked = new Set<number>();
  if (median < 0 || max < 0 || ranks < 0) return marked;
  let largest = 0;
  for (const node of tree.nodes) largest = Math.max(largest, node.values[max] ?? 0);
  for (const node of tree.nodes) {
    const m = node.values[median];
    const top = node.values[max];
    const count = node.values[ranks];
    if (m === null || top === null || count === null || count < 2) continue;
    if (top >= STRAGGLER_RATIO * m && top - m >= STRAGGLER_MIN_SHARE * largest && top > m) {
      marked.add(node.id);
    }
  }
  return marked;
}

// Whether the Job page reads /api/job again (tree_page.ts's live refresh): while the server says
// a session of the job still runs. Anything but a JSON true (an untrusted answer) is no.
export function jobIsRunning(answer: JobAnswer): boolean {
  return answer.running === true;
}

// Where the ranks were read, as the page's facts say it: "on this node", or over several
// (protonctl --hosts ... ui) "on N nodes", counted by the ranks' distinct hosts.
export function whereRanksAre(answer: JobAnswer): string {
  const hosts = new Set((Array.isArray(answer.ranks) ? answer.ranks : []).map((rank) => String(rank.host ?? "")));
  return hosts.size > 1 ? `on ${hosts.size} nodes` : "on this node";
}

// The job a session is of, as `protonctl tree --job` finds it: the one it was started for, else
// its first process's SLURM_JOB_ID, else its POD_NAME; "" for none.
export function jobOfSession(session: Session): string {
  if (session.job) return String(session.job);
  for (const process of Array.isArray(session.processes) ? session.processes : []) {
    const job = process.job?.slurm_job_id || process.job?.pod;
    if (job) return String(job);
  }
  return "";
}

// protonctl job's report as the page shows it: its lines kept (a table), each one's controls
// escaped and cut as names are; at most MAX_VERDICT_LINES lines.
export const MAX_VERDICT_LINES = 500;

export function verdictText(report: string): string {
  const lines = String(report).split("\n");
  const shown = lines.slice(0, MAX_VERDICT_LINES).map((line) => displayName(line, 1000));
  if (lines.length > MAX_VERDICT_LINES) shown.push(`\u2026 (${lines.length} lines)`);
  return shown.join("\n");
}
