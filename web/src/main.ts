// The page's router: #/sessions, #/session/ID, #/diff/A/B, #/history?QUERY,
// #/range-diff?QUERY, #/job/JOB (docs/web.md). Each
// view returns a function that stops it (timers, late answers) when the address changes.

import { fetchSignOutPath } from "./api";
import { clear, clearError, h } from "./dom";
import { showDiff } from "./views/diff";
import { showHistory } from "./views/history";
import { showJob } from "./views/job";
import { showRangeDiff } from "./views/range_diff";
import { showSession } from "./views/session";
import { showSessions } from "./views/sessions";

let stopView: (() => void) | null = null;

// A job id as the address carries it (%-encoded); null for a bad %-escape.
function jobId(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

function route(): void {
  const view = document.getElementById("view");
  if (!view) return;
  stopView?.();
  stopView = null;
  clear(view);
  clearError();
  const hash = window.location.hash;
  let match: RegExpMatchArray | null;
  if ((match = hash.match(/^#\/session\/(\d+)$/))) {
    stopView = showSession(view, match[1]);
  } else if ((match = hash.match(/^#\/diff\/(\d+)\/(\d+)$/))) {
    stopView = showDiff(view, match[1], match[2]);
  } else if ((match = hash.match(/^#\/job\/([^/?]+)$/)) && jobId(match[1]) !== null) {
    stopView = showJob(view, jobId(match[1]) as string);
  } else if ((match = hash.match(/^#\/range-diff\?(.*)$/))) {
    stopView = showRangeDiff(view, match[1]);
  } else if ((match = hash.match(/^#\/history(?:\?(.*))?$/))) {
    stopView = showHistory(view, match[1] ?? "");
  } else if (hash === "" || hash === "#" || hash === "#/" || hash === "#/sessions") {
    stopView = showSessions(view);
  } else {
    view.appendChild(h("p", {}, "No such page. ", h("a", { href: "#/sessions" }, "All sessions")));
  }
}

// A "Sign out" button in the header where the server has a sign-out (protond's page): it ends
// the sign-in and goes back to the start, which is then the sign-in form.
function addSignOut(path: string): void {
  const header = document.querySelector("header");
  if (!header) return;
  const button = h("button", { type: "button", id: "sign-out" }, "Sign out");
  button.addEventListener("click", () => {
    void fetch(path, { method: "POST", credentials: "same-origin" }).finally(() => window.location.assign("/"));
  });
  header.appendChild(button);
}

window.addEventListener("hashchange", route);
route();
void fetchSignOutPath().then((path) => {
  if (path !== null) addSignOut(path);
});
