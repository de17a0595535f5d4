#!/usr/bin/env bash
# Builds the page of `protonctl ui` (web/, docs/web.md) into OUTDIR: index.html, app.js, app.css.
# Installs web/'s npm packages first (npm ci) when node_modules is missing or was installed from
# another package-lock.json; type-checks the sources (tsc); bundles them (esbuild). The built
# page needs nothing from the network.
#
#   scripts/build_web.sh [OUTDIR]     (default: build/share/protond/web)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
web=$root/web
outdir=${1:-$root/build/share/protond/web}

for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "build_web.sh: '$tool' not found: the page needs Node.js 18 or later and npm" \
      "(scripts/install-deps.sh installs them; or configure with -DPROTOND_BUILD_WEB=OFF)" >&2
    exit 1
  fi
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  echo "build_web.sh: Node.js $(node --version) is too old: the page needs 18 or later" >&2
  exit 1
fi

# node_modules is current when it was installed from this very package-lock.json.
lock_hash=$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)
stamp=$web/node_modules/.protond-package-lock.sha256
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "build_web.sh: npm ci in $web" >&2
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_hash" >"$stamp"
fi

(cd "$web" && node_modules/.bin/tsc --noEmit -p .)
node "$web/build.mjs" "$outdir"
