#!/usr/bin/env bash
# Installs every Debian package CommAnalyzer needs, only when one is missing.
# Idempotent: a machine that has them all returns at once. Used by both README
# commands and by .ci/run.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-platforms      # Bazel 4.2.3 and @platforms
  g++ libabsl-dev libboost-graph-dev libmetis-dev
  libeigen3-dev                        # least squares of the scaling model
  nlohmann-json3-dev                   # reading estimates and measurements (compare)
  libtrilinos-zoltan-dev               # Zoltan's hypergraph partitioner
  libscotchparmetis-dev                # ParMETIS's API by PT-Scotch (--partitioner parmetis)
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-16-dev clang-16                 # the instrumentation shim
  libopenmpi-dev openmpi-bin           # MPI reference runs
  libjs-chart.js                       # Chart.js, inlined into the HTML report
  chromium                             # headless browser for the HTML report's test
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" >&2
