#!/usr/bin/env bash
# ctest's entry to the browser test (page_test.mjs): exits 77 (skipped) with a message where
# Node.js is missing; page_test.mjs itself skips where Chromium is.
#   page_test.sh WEB_DIR ARTIFACTS_DIR
set -euo pipefail
if ! command -v node >/dev/null; then
  echo "SKIP: no node on PATH (Node.js 18 or later; scripts/install-deps.sh installs it)"
  exit 77
fi
exec node "$(dirname "$0")/page_test.mjs" "$@"
