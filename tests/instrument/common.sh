# Sourced by an instrument test run as `TEST.sh TOOL SOURCE`: the tool and
# the source as absolute paths, a scratch directory to work in, and
# analyze_at.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"

# analyze_at LEVEL PROCS [PROGRAM ARGS...]: `analyze SOURCE -OLEVEL --procs
# PROCS -- ARGS` into $out; the test fails there if the tool does.
analyze_at() {
  local level="$1" procs="$2" code
  shift 2
  out=$("$tool" analyze "$src" -O"$level" --procs "$procs" -- "$@" 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$level exited $code"; exit 1; }
}
