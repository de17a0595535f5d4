// Builds the page (docs/web.md): src/main.ts bundled by esbuild into app.js, beside
// static/index.html and static/app.css, in OUTDIR. With --tests OUTDIR: each test/*.test.ts
// bundled into OUTDIR/*.test.mjs for `node --test` instead.
//
//   node build.mjs OUTDIR
//   node build.mjs --tests OUTDIR

import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const tests = args[0] === "--tests";
const outdir = resolve(args[tests ? 1 : 0] ?? join(here, "..", "build", "share", "protond", "web"));
mkdirSync(outdir, { recursive: true });

if (tests) {
  const entries = readdirSync(join(here, "test")).filter((f) => f.endsWith(".test.ts"));
  await build({
    entryPoints: entries.map((f) => join(here, "test", f)),
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    logLevel: "warning",
  });
} else {
  await build({
    entryPoints: [join(here, "src", "main.ts")],
    outfile: join(outdir, "app.js"),
    bundle: true,
    format: "iife",
    target: ["chrome100", "firefox100", "safari15"],
    minify: true,
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
  for (const file of ["index.html", "app.css"]) copyFileSync(join(here, "static", file), join(outdir, file));
}
console.log(`protond web: ${tests ? "tests" : "page"} built in ${outdir}`);
