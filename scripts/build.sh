#!/usr/bin/env bash
# Configures and builds protond into $BUILD_DIR (default: build), type $BUILD_TYPE (default:
# RelWithDebInfo), only $TARGETS if set. Arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
# shellcheck disable=SC2086
ninja -C "$build_dir" ${TARGETS:-}
