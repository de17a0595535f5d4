#!/usr/bin/env bash
# Installs what protond needs to build and test on Debian 12 (apt-get; sudo when not root).
# Does nothing when everything is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libsqlite3-dev nlohmann-json3-dev libre2-dev libgtest-dev libgmock-dev libbenchmark-dev
  prometheus-cpp-dev  # Prometheus' C++ client: writes protond's /metrics text (daemon/metrics)
  libcivetweb-dev  # the HTTP server of `protonctl ui` (cli/ui/); prometheus-cpp-dev pulls it in too
  libssl-dev  # HTTPS for the page protond serves (page_server/tls_front.h); libgrpc-dev pulls it in too
  # pprof's profile.proto, from which the build generates the C++ of `protonctl export --format
  # pprof` (view/export/pprof); arch all, about 1 MB with the two Go sources it pulls in.
  golang-github-google-pprof-dev
  clang libclang-rt-dev clang-format python3 python3-pytest
  iproute2 openssl  # network namespaces and certificates for the TLS tests (tests/integration/remote_test.cc)
  chromium  # headless, for the SVG flame graph test (tests/export)
  # The SPANK plugin's header and a one-node Slurm for its test (tests/slurm). The test starts
  # its own munged, slurmctld and slurmd; the packages' services do not get in its way: slurmd
  # and slurmctld start only with an /etc/slurm/slurm.conf, and munged's default socket is not
  # the test's.
  libslurm-dev slurmctld slurmd slurm-client munge
  # promtool checks protond's /metrics text (tests/integration/metrics_test.cc). Debian ships it
  # only in the server's package: on a machine where systemd runs, installing it also enables and
  # starts a Prometheus server on port 9090 (`systemctl disable --now prometheus` stops it).
  prometheus
  python3-yaml  # parses the Kubernetes manifests (tests/deploy/k8s_manifests_test.py)
  # An interpreter to embed in the test of the shim's Python frame reader
  # (shim/python/python_stack_test.cc); the shim itself needs no Python headers.
  python3-dev
  # `pip install ./client-lib/python` offline into a venv (docs/python.md), which
  # client-lib/python/tests/test_packaging.py does: Debian's pip, venv and build backend.
  python3-pip python3-venv python3-setuptools python3-wheel
  # MLIR 19 for mlir-instrument (proton dialects, proton-opt), its lit/FileCheck tests and llc.
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  # Node.js builds the page of protonctl ui (web/, scripts/build_web.sh) and runs its tests;
  # chromium above runs its browser test (tests/web).
  nodejs
)
# npm installs the page's packages. A Node.js from elsewhere (NodeSource's nodejs package)
# brings its own npm and conflicts with Debian's npm package: ask for Debian's only where no npm
# is on PATH.
command -v npm >/dev/null || packages+=(npm)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "protond: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
