#!/usr/bin/env node
// The browser test for ctest (label web): mock_server.mjs serves the built page and its
// fixtures, page_check.mjs drives Chromium against it. Exits 77 (skipped) with a message where
// Chromium is missing; fails where the page was not built.
//
//   page_test.mjs WEB_DIR ARTIFACTS_DIR

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HISTORY_PID, LIVE_JOB } from "./fixtures.mjs";
import { startMockServer } from "./mock_server.mjs";

const SKIPPED = 77;
const [webDir, artifacts] = process.argv.slice(2);
if (!webDir || !artifacts) {
  console.error("usage: page_test.mjs WEB_DIR ARTIFACTS_DIR");
  process.exit(2);
}
const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.log(`SKIP: no Chromium at ${chromium} (Debian's chromium package; scripts/install-deps.sh installs it)`);
  process.exit(SKIPPED);
}
for (const file of ["index.html", "app.js", "app.css"]) {
  if (!existsSync(join(webDir, file))) {
    console.error(`FAIL: ${join(webDir, file)} is missing: build the page first (scripts/build_web.sh ${webDir})`);
    process.exit(1);
  }
}
const server = await startMockServer({ webDir });
const here = dirname(fileURLToPath(import.meta.url));
// Not spawnSync: this process serves the page while the check runs.
const child = spawn(process.execPath, [join(here, "page_check.mjs"), server.url, "1", "--diff", "1", "2",
  "--big", "3", "--live", "4", "--job-live", LIVE_JOB, "--history-live", HISTORY_PID, "--require-hostile", "--require-panes", "--artifacts", artifacts], { stdio: "inherit" });
const status = await new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
server.close();
process.exit(status);
