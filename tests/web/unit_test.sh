#!/usr/bin/env bash
# The page's pure parts (web/test/*.test.ts: tree building, icicle layout, diff colours, name
# display) under node's own test runner. Exits 77 (skipped) with a message where Node.js is
# missing; fails where web/node_modules was never installed (scripts/build_web.sh does it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v node >/dev/null; then
  echo "SKIP: no node on PATH (Node.js 18 or later; scripts/install-deps.sh installs it)"
  exit 77
fi
if [ ! -d "$root/web/node_modules/esbuild" ]; then
  echo "FAIL: web/node_modules is missing: run scripts/build_web.sh first" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node "$root/web/build.mjs" --tests "$out"
PROTOND_WEB_SRC=$root/web/src node --test "$out"/
