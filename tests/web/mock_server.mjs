#!/usr/bin/env node
// A stand-in for `protonctl ui` (docs/web.md) until the real server lands: the same sign-in
// (?token= -> cookie -> 303 to /), the page's files from a directory, and the API over the
// fixtures of fixtures.mjs. For the browser test (page_test.mjs, page_check.mjs) and for trying
// the page by hand:
//
//   node tests/web/mock_server.mjs WEB_DIR [PORT]     prints the address with its token

import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  diffAnswer, GROWING, historyAnswer, jobAnswer, LIVE_JOB, sessions, stallsAnswer, topAnswer, treeAnswer,
} from "./fixtures.mjs";

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8" };

function json(response, status, body) {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify(body));
}

function signedIn(request, token) {
  const cookie = (request.headers.cookie ?? "").split(/;\s*/).find((c) => c.startsWith("protond_ui="));
  const bearer = (request.headers.authorization ?? "").replace(/^Bearer /, "");
  const given = cookie ? cookie.slice("protond_ui=".length) : bearer;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function startMockServer({ webDir, port = 0, token = randomBytes(32).toString("hex") }) {
  const root = resolve(webDir);
  const started = Date.now();
  const runningRecords = () => String(1000 + Math.floor((Date.now() - started) / 100));
  // Session 4 grows at each fetch of its tree (or of LIVE_JOB's, whose one rank it is) while
  // RUNNING; /api/mock/stop and /api/mock/start
  // (the mock's own, for page_check.mjs) stop it and start it again; /api/mock/fail makes its next
  // tree fetch a 502; /api/mock/fetches counts its tree requests. /api/history lists a stopped
  // window of 300 ms every second since the start (fixtures.mjs, historyAnswer).
  const growing = { fetches: 0, state: "RUNNING", treeRequests: 0, fail: 0 };
  const api = (url) => {
    const q = url.searchParams;
    if ((url.pathname === "/api/tree" && q.get("session") === GROWING) ||
        (url.pathname === "/api/job" && q.get("job") === LIVE_JOB)) {
      growing.treeRequests++;
      if (growing.fail > 0) {
        growing.fail--;
        return { status: 502, body: { error: "protond did not answer (the mock's /api/mock/fail)" } };
      }
      if (growing.state === "RUNNING") growing.fetches++;
    }
    const all = sessions(runningRecords(), growing);
    const fullNames = q.get("names") === "full";
    if (q.has("names") && !["short", "full"].includes(q.get("names"))) {
      return { status: 400, body: { error: `names: '${q.get("names")}' is neither short nor full` } };
    }
    switch (url.pathname) {
      case "/api/sessions": return { status: 200, body: { sessions: all } };
      case "/api/tree": return treeAnswer(q.get("session") ?? "", q.get("metrics") ?? "", fullNames, all, growing.fetches);
      case "/api/job": return jobAnswer(q.get("job") ?? "", q.get("metrics") ?? "", fullNames, all, growing);
      case "/api/top": return topAnswer(q.get("session") ?? "", fullNames, all);
      case "/api/stalls": return stallsAnswer(q.get("session") ?? "", q.get("sass") === "1", all);
      case "/api/mock/stop": growing.state = "STOPPED"; return { status: 200, body: { growing } };
      case "/api/mock/start": growing.state = "RUNNING"; return { status: 200, body: { growing } };
      case "/api/mock/fail": growing.fail = 1; return { status: 200, body: { growing } };
      case "/api/mock/fetches": return { status: 200, body: { growing } };
      case "/api/diff": return diffAnswer(q.get("a") ?? "", q.get("b") ?? "", q.get("metrics") ?? "", fullNames, all);
      case "/api/history": return historyAnswer(started, Date.now(), q.get("pid"));
      default: return { status: 404, body: { error: `no such API: ${url.pathname}` } };
    }
  };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, "http://localhost");
    if (request.method !== "GET") return json(response, 405, { error: `${request.method}: only GET` });
    if (url.pathname === "/" && url.searchParams.has("token")) {
      if (url.searchParams.get("token") !== token) return json(response, 401, { error: "wrong token" });
      response.writeHead(303, { Location: "/", "Set-Cookie": `protond_ui=${token}; HttpOnly; SameSite=Strict; Path=/` });
      return response.end();
    }
    if (!signedIn(request, token)) return json(response, 401, { error: "sign in with the address protonctl ui printed" });
    if (url.pathname === "/api/export") {
      const id = url.searchParams.get("session") ?? "";
      const format = url.searchParams.get("format") ?? "";
      if (!["hatchet", "chrome", "folded", "svg", "csv", "pprof"].includes(format)) {
        return json(response, 400, { error: `format: unknown format '${format}'` });
      }
      if (!/^\d+$/.test(id)) return json(response, 400, { error: `session: '${id}' is not a number` });
      response.writeHead(200, { "Content-Type": "application/octet-stream",
        "Content-Disposition": `attachment; filename="protond-${id}.${format}"` });
      return response.end(`mock ${format} export of session ${id}\n`);
    }
    if (url.pathname.startsWith("/api/")) {
      const { status, body } = api(url);
      return json(response, status, body);
    }
    const name = url.pathname === "/" ? "index.html" : url.pathname.slice(1);
    if (!/^[\w.-]+$/.test(name)) return json(response, 404, { error: "no such file" });
    try {
      const bytes = await readFile(join(root, name));
      response.writeHead(200, { "Content-Type": TYPES[extname(name)] ?? "application/octet-stream" });
      response.end(bytes);
    } catch {
      json(response, 404, { error: `no such file: ${name}` });
    }
  });
  return new Promise((resolvePromise) => {
    server.listen(port, "127.0.0.1", () => {
      const address = `http://127.0.0.1:${server.address().port}`;
      resolvePromise({ origin: address, url: `${address}/?token=${token}`, close: () => server.close() });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.length < 3) {
    console.error("usage: mock_server.mjs WEB_DIR [PORT]");
    process.exit(2);
  }
  const server = await startMockServer({ webDir: process.argv[2], port: Number(process.argv[3] ?? 0) });
  console.log(server.url);
}
