// Reads protonctl ui's API (docs/web.md). The sign-in cookie goes with each request
// (credentials: same-origin); an answer that is not 2xx becomes an ApiError carrying the
// server's {"error": ...} text, which the views show in the error banner.

import type {
  HistoryAnswer,
  JobAnswer,
  SessionsAnswer,
  StallsAnswer,
  TopAnswer,
  TreeAnswer,
} from "./api_types";
import { displayName } from "./text";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  } catch (e) {
    throw new ApiError(0, `${path}: the server did not answer (${String(e)})`);
  }
  const body = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ApiError(response.status, `${path}: HTTP ${response.status}, not JSON: ${displayName(body, 200)}`);
  }
  if (!response.ok) {
    const error = (parsed as { error?: unknown })?.error;
    const text = typeof error === "string" ? error : `HTTP ${response.status}`;
    throw new ApiError(response.status, `${path}: ${displayName(text, 2000)} (HTTP ${response.status})`);
  }
  return parsed as T;
}

export interface TreeOptions {
  metrics: string;
  fullNames: boolean;
}

function treeQuery(options: TreeOptions): string {
  let query = "";
  if (options.metrics !== "") query += "&metrics=" + encodeURIComponent(options.metrics);
  if (options.fullNames) query += "&names=full";
  return query;
}

export function fetchSessions(): Promise<SessionsAnswer> {
  return getJson<SessionsAnswer>("/api/sessions");
}

export function fetchTree(session: string, options: TreeOptions): Promise<TreeAnswer> {
  return getJson<TreeAnswer>("/api/tree?session=" + encodeURIComponent(session) + treeQuery(options));
}

export function fetchDiff(a: string, b: string, options: TreeOptions): Promise<TreeAnswer> {
  const ids = "a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(b);
  return getJson<TreeAnswer>("/api/diff?" + ids + treeQuery(options));
}

// Two ranges of always-on windows, the later minus the earlier (`tree --since A --diff --since B`);
// `query`: history.ts's rangeDiffQuery.
export function fetchRangeDiff(query: string, options: TreeOptions): Promise<TreeAnswer> {
  return getJson<TreeAnswer>("/api/range-diff?" + query + treeQuery(options));
}

// The job's ranks side by side (protonctl tree --job); only the first metric of options.metrics
// is spread.
export function fetchJob(job: string, options: TreeOptions): Promise<JobAnswer> {
  return getJson<JobAnswer>("/api/job?job=" + encodeURIComponent(job) + treeQuery(options));
}

// `query`: history.ts's selectionQuery, `protonctl history`'s options.
export function fetchHistory(query: string): Promise<HistoryAnswer> {
  return getJson<HistoryAnswer>("/api/history" + (query ? "?" + query : ""));
}

// `protonctl top SESSION [--full-names]`: the kernels with their verdicts, and the devices.
export function fetchTop(session: string, fullNames: boolean): Promise<TopAnswer> {
  return getJson<TopAnswer>("/api/top?session=" + encodeURIComponent(session) + (fullNames ? "&names=full" : ""));
}

// `protonctl top SESSION --stalls`; with `sass`, each line's instructions too (`tree -f sass`).
export function fetchStalls(session: string, sass: boolean): Promise<StallsAnswer> {
  return getJson<StallsAnswer>("/api/stalls?session=" + encodeURIComponent(session) + (sass ? "&sass=1" : ""));
}

export const EXPORT_FORMATS = ["hatchet", "hatchet_msgpack", "chrome", "folded", "svg", "csv", "pprof"] as const;

export function exportUrl(session: string, format: string): string {
  return "/api/export?session=" + encodeURIComponent(session) + "&format=" + encodeURIComponent(format);
}

// Where the page signs out: `/api/page`'s `sign_out`, which only protond's page has (docs/web.md;
// protonctl ui's token lives as long as it runs). Null for anything but a path on this server.
export function signOutPath(answer: unknown): string | null {
  const path = (answer as { sign_out?: unknown } | null)?.sign_out;
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//") ? path : null;
}

// The sign-out path of this page's server; null where it has none (protonctl ui answers
// /api/page with a 404).
export async function fetchSignOutPath(): Promise<string | null> {
  try {
    return signOutPath(await getJson<unknown>("/api/page"));
  } catch {
    return null;
  }
}
