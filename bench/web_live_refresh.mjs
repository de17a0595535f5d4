#!/usr/bin/env node
// The live refresh of a running session's page (docs/web.md, issue 31's bench), against a real
// protond: a protond in a temporary directory, wide_tree_workload holding a 10,222-frame session
// open (RUNNING), `protonctl ui`, and headless Chromium on #/session/ID, which reads the tree
// again every 2 s, and after each tree its panes' /api/top and /api/stalls. Measures, over
// DURATION seconds (default 120; 600 by hand for issue 31's 10 minutes) with the panes' reads,
// then DURATION seconds with them refused by the browser (the tree's reads alone, as before the
// panes), then DURATION seconds idle:
//   (a) protond's CPU time per refresh: utime+stime (/proc/PID/stat) per 10 s window divided by
//       the refreshes the page made in it, less protond's CPU over an idle window of the same
//       length (the same session running, no page open; measured after the page is closed);
//       protonctl ui's CPU per refresh beside it (it turns protond's answers into JSON); and the
//       page's requests of each API per refresh;
//   (b) the page's JS heap (puppeteer's page.metrics() JSHeapUsedSize) every 10 s, as it is and
//       after a forced garbage collection, first sample against the last.
// Prints medians and spread [min-max]. Not a test: nothing here fails on a number.
//
//   node bench/web_live_refresh.mjs [BUILD_DIR] [DURATION_S]      (defaults: build, 120)

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(new URL("..", import.meta.url).pathname);
const build = resolve(process.argv[2] ?? join(repo, "build"));
const duration = Number(process.argv[3] ?? 120);
const WINDOW_S = 10;
const bin = join(build, "bin");
const web = join(build, "share", "protond", "web");
for (const f of [join(bin, "protond"), join(bin, "protonctl"), join(bin, "wide_tree_workload"), join(web, "index.html")]) {
  if (!existsSync(f)) {
    console.error(`web_live_refresh: ${f} is missing (ninja -C ${build} protond protonctl wide_tree_workload protond_web)`);
    process.exit(1);
  }
}
const require = createRequire(join(repo, "web", "package.json"));
const puppeteer = require("puppeteer-core");

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond; // utime, stime (fields 14, 15)
}
function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  const median = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  return { median, min: v[0], max: v[v.length - 1], n: v.length };
}
const fmt = (s, unit, digits = 1) =>
  `median ${s.median.toFixed(digits)} ${unit} [${s.min.toFixed(digits)}-${s.max.toFixed(digits)}] over ${s.n} windows`;

const dir = mkdtempSync(join(tmpdir(), "protond-live-bench-"));
const sock = join(dir, "protond.sock");
const children = [];
function start(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  children.push(child);
  return child;
}
const ctl = (...args) => execFileSync(join(bin, "protonctl"), ["--socket", sock, ...args]).toString();
let browser = null;
async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  for (const child of children.reverse()) if (child.exitCode === null) child.kill("SIGTERM");
  await sleep(300);
  rmSync(dir, { recursive: true, force: true });
}

try {
  const protond = start(join(bin, "protond"), ["--socket", sock, "--state-dir", join(dir, "state")]);
  for (let i = 0; i < 100; i++) {
    try { ctl("sessions"); break; } catch { await sleep(100); }
  }
  // Holds its session open well past both phases.
  const hold = String(3 * duration + 120);
  start(join(bin, "protonctl"), ["--socket", sock, "run", "--name", "live-big", "--",
    join(bin, "wide_tree_workload"), "20", "10", "50", "2", hold]);
  const ui = start(join(bin, "protonctl"), ["--socket", sock, "ui", "--port", "0", "--web-dir", web]);
  const url = await new Promise((resolveUrl, reject) => {
    let out = "";
    ui.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/protonctl ui: (\S+)/);
      if (m) resolveUrl(m[1]);
    });
    ui.on("exit", () => reject(new Error("protonctl ui exited")));
  });
  const origin = new URL(url).origin;
  const token = new URL(url).searchParams.get("token");
  const get = async (path) => (await fetch(origin + path, { headers: { Authorization: `Bearer ${token}` } })).json();
  // The session, RUNNING, with its whole tree.
  let id = null;
  let nodes = 0;
  for (let i = 0; i < 600 && nodes < 10000; i++) {
    const s = (await get("/api/sessions")).sessions?.find((x) => x.name === "live-big" && x.state === "RUNNING");
    if (s) {
      id = s.id;
      nodes = (await get(`/api/tree?session=${id}`)).nodes?.length ?? 0;
    }
    if (nodes < 10000) await sleep(500);
  }
  if (id === null || nodes < 10000) throw new Error(`no running session with a 10k-node tree (${nodes} nodes)`);
  console.log(`session ${id}: RUNNING, ${nodes} frames; protond pid ${protond.pid}, protonctl ui pid ${ui.pid}; ` +
    `${duration} s of live refresh with the panes, ${duration} s without, then ${duration} s idle; ` +
    `windows of ${WINDOW_S} s`);

  const args = ["--headless=new", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--window-size=1400,1000"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true,
    args, userDataDir: join(dir, "chromium"), defaultViewport: { width: 1400, height: 1000 } });
  const page = await browser.newPage();
  const cdp = await page.createCDPSession();
  await page.goto(url, { waitUntil: "load" });
  await page.goto(`${origin}/#/session/${id}`, { waitUntil: "load" });
  await page.waitForFunction(() => document.getElementById("live-status")?.getAttribute("data-live") === "true",
    { timeout: 0 });
  const refreshes = async () =>
    Number(await page.$eval("#live-status", (s) => s.getAttribute("data-refreshes") ?? "0"));
  const heap = async (collect) => {
    if (collect) await cdp.send("HeapProfiler.collectGarbage");
    return (await page.metrics()).JSHeapUsedSize / 2 ** 20;
  };

  // The page's requests, by API path (counted as the browser sends them); with `refusePanes`
  // those of the panes are refused before they leave it.
  const requests = new Map();
  let refusePanes = false;
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (refusePanes && (path === "/api/top" || path === "/api/stalls")) {
      void request.abort();
      return;
    }
    requests.set(path, (requests.get(path) ?? 0) + 1);
    void request.continue();
  });
  const sample = async () => ({ protond: cpuSeconds(protond.pid), ui: cpuSeconds(ui.pid), refreshes: await refreshes(),
    top: requests.get("/api/top") ?? 0, stalls: requests.get("/api/stalls") ?? 0 });

  // A live phase: per window, the CPU of each process, the page's refreshes and its panes' reads.
  const heaps = [];
  const heapsGc = [];
  const livePhase = async () => {
    const windows = [];
    let last = await sample();
    heaps.push(await heap(false));
    heapsGc.push(await heap(true));
    for (let t = 0; t < duration; t += WINDOW_S) {
      await sleep(WINDOW_S * 1000);
      const now = await sample();
      windows.push(Object.fromEntries(Object.keys(now).map((k) => [k, now[k] - last[k]])));
      heaps.push(await heap(false));
      heapsGc.push(await heap(true));
      last = await sample();
    }
    return windows;
  };
  const live = await livePhase();
  refusePanes = true;
  const treeOnly = await livePhase();
  const failed = await page.$eval("#live-status", (s) => s.getAttribute("data-live"));
  await browser.close();
  browser = null;

  // Idle phase: the same session running, no page.
  const idle = [];
  let last = { protond: cpuSeconds(protond.pid), ui: cpuSeconds(ui.pid) };
  for (let t = 0; t < duration; t += WINDOW_S) {
    await sleep(WINDOW_S * 1000);
    const now = { protond: cpuSeconds(protond.pid), ui: cpuSeconds(ui.pid) };
    idle.push({ protond: now.protond - last.protond, ui: now.ui - last.ui });
    last = now;
  }

  const idleProtond = stats(idle.map((w) => w.protond)).median;
  const idleUi = stats(idle.map((w) => w.ui)).median;
  const perRefresh = (windows, key, idleMedian) => stats(windows.filter((w) => w.refreshes > 0)
    .map((w) => ((w[key] - idleMedian) / w.refreshes) * 1000));
  console.log(`protond idle CPU: ${fmt(stats(idle.map((w) => w.protond * 1000)), `ms per ${WINDOW_S} s`)}`);
  for (const [what, windows] of [["with the panes", live], ["the tree alone (panes refused)", treeOnly]]) {
    const totalRefreshes = windows.reduce((a, w) => a + w.refreshes, 0);
    const sum = (key) => windows.reduce((a, w) => a + w[key], 0);
    console.log(`${what}: ${totalRefreshes} refreshes in ${windows.length * WINDOW_S} s, ` +
      `/api/top ${sum("top")} and /api/stalls ${sum("stalls")} sent (last state: data-live=${failed})`);
    console.log(`  protond CPU per refresh, less idle: ${fmt(perRefresh(windows, "protond", idleProtond), "ms")} (goal <= 100 ms)`);
    console.log(`  protonctl ui CPU per refresh, less idle: ${fmt(perRefresh(windows, "ui", idleUi), "ms")}`);
    const sumProtond = sum("protond") - idleProtond * windows.length;
    console.log(`  protond CPU per refresh over the whole phase, less idle: ${(sumProtond / totalRefreshes * 1000).toFixed(1)} ms`);
  }
  console.log(`page JS heap every ${WINDOW_S} s (MiB): ${heaps.map((h) => h.toFixed(1)).join(" ")}`);
  console.log(`page JS heap after GC (MiB): ${heapsGc.map((h) => h.toFixed(1)).join(" ")}`);
  const s = stats(heapsGc);
  console.log(`page JS heap after GC: first ${heapsGc[0].toFixed(1)} MiB, last ${heapsGc.at(-1).toFixed(1)} MiB, ` +
    `${fmt(s, "MiB")}`);
} catch (e) {
  console.error(`web_live_refresh: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
