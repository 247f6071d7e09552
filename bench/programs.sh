# Sourced by the scripted benchmarks (shim_overhead.sh, estimate_speed.sh):
# the repository root as working directory, the tool built ($tool), a
# scratch directory ($work, removed at exit), and issue 3's two benchmark
# programs as "name|source|arguments" ($programs; smaller ones with --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:commanalyzer >/dev/null 2>&1
tool="$PWD/bazel-bin/tools/commanalyzer"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
programs=("MatMul n=256|examples/matmul/matmul_seq.c|256"
          "Jacobi 2-D 1024x1024, 100 steps|examples/heat2d/heat2d_seq.c|1024 100")
quick=false
if [ "${1:-}" = "--quick" ]; then
  quick=true
  programs=("MatMul n=96|examples/matmul/matmul_seq.c|96" "Jacobi 2-D 256x256, 10 steps|examples/heat2d/heat2d_seq.c|256 10")
fi
