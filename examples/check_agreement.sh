#!/usr/bin/env bash
# check_agreement.sh [--full]
#
# Runs every sequential example and its MPI reference version (under the
# PMPI counter, through run_reference.sh) on small sizes at 2-3 process counts
# and checks that the printed checksums agree to a relative 1e-9. --full adds
# a larger process count per app (16/64 ranks). Exit status 0 iff all agree.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${CA_BUILD_DIR:-/tmp/commanalyzer-examples-build}"
export CA_BUILD_DIR="$build"
mkdir -p "$build"
full=0
[ "${1:-}" = "--full" ] && full=1

# app | args | process counts | extra process counts with --full
cases=(
  "matmul|48|1 4 9|16 64"
  "spmv|2000 10|1 3 8|16 64"
  "heat2d|40 25|1 4 6|16 64"
  "minighost|12 10 14 3 5|1 8 12|27 64"
  "lulesh|8 15|1 8 27|64"
)

checksum() { sed -n 's/^checksum \([^ ]*\).*/\1/p' | tail -1; }
fail=0
for c in "${cases[@]}"; do
  IFS='|' read -r app args nps more <<<"$c"
  [ $full = 1 ] && nps="$nps $more"
  seq_bin="$build/${app}_seq"
  seq_src="$here/$app/${app}_seq.c"
  if [ ! -f "$seq_bin" ] || [ "$seq_src" -nt "$seq_bin" ]; then
    gcc -O2 -Wall -std=c11 -I"$here/../include" -o "$seq_bin" "$seq_src" -lm || { fail=1; continue; }
  fi
  # shellcheck disable=SC2086
  ref=$("$seq_bin" $args | checksum)
  for np in $nps; do
    # shellcheck disable=SC2086
    got=$(CA_PMPI_OUT="$build/agree_${app}_p${np}.json" "$here/run_reference.sh" "$app" "$np" $args | checksum)
    if python3 - "$ref" "$got" <<'PY'
import sys
try:
    a, b = float(sys.argv[1]), float(sys.argv[2])
except ValueError:
    sys.exit(1)
sys.exit(0 if abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300) else 1)
PY
    then
      printf 'OK    %-10s P=%-3s seq %s  mpi %s\n' "$app" "$np" "$ref" "$got"
    else
      printf 'FAIL  %-10s P=%-3s seq %s  mpi %s\n' "$app" "$np" "${ref:-?}" "${got:-?}"
      fail=1
    fi
  done
done
exit $fail
