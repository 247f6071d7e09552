#!/usr/bin/env bash
# validate_maps.sh OUT
#
# The cost model alone, against each MPI reference: every example that
# tools/validate.sh analysed and measured into OUT is re-estimated from its
# kept profile under the reference's own decomposition (tools/reference_maps.py
# writes it as a --distribution map), and compared with the measured bytes.
# The difference to validate.sh's default estimate is the choice of
# distribution; what is left here is the cost model's.
#
#   tools/validate.sh --out /tmp/v && tools/validate_maps.sh /tmp/v
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-}"
[ -n "$out" ] && [ -f "$out/manifest.tsv" ] || { echo "validate_maps.sh: give a tools/validate.sh output directory" >&2; exit 2; }
# The tool validate.sh ran (it keeps a copy), else the workspace's.
tool="$out/tool/commanalyzer"
if [ ! -x "$tool" ]; then
  tool="$root/bazel-bin/tools/commanalyzer"
  (cd "$root" && bazel build -c opt //tools:commanalyzer >/dev/null 2>&1)
fi
maps="$out/maps"
mkdir -p "$maps"

echo "| app | P | measured B | estimated B, reference's map | accuracy | estimated B, default | distribution kept |"
echo "|---|---:|---:|---:|---:|---:|---|"
while IFS=$'\t' read -r kind app args procs _; do
  [ "$kind" = app ] || continue
  profile="$out/$app/program.profile"
  [ -f "$profile" ] || { echo "validate_maps.sh: no profile $profile" >&2; exit 1; }
  extra=()
  if [ "$app" = lulesh ]; then  # the first array of each kind, by its size
    extra=($(python3 -c 'import json, sys
s = int(sys.argv[2])
arrays = [b for b, _ in json.load(open(sys.argv[1]))["arrays"]]
for kind, size in (("nodelist", 32 * s**3), ("nodes", 8 * (s + 1)**3), ("elements", 8 * s**3), ("element_ints", 4 * s**3)):
    if size in arrays: print(f"{kind}={arrays.index(size) + 1}")' "$out/$app/estimate.json" "${args%% *}"))
  fi
  IFS=, read -r -a counts <<< "$procs"
  for p in "${counts[@]}"; do
    map="$maps/${app}_p$p.map"
    python3 "$root/tools/reference_maps.py" "$app" "$args" "$p" ${extra[@]+"${extra[@]}"} < /dev/null > "$map"
    "$tool" estimate "$profile" --procs "$p" --distribution "$map" --json "$maps/${app}_p$p.json" < /dev/null > "$maps/${app}_p$p.log" 2>&1 ||
      { tail -5 "$maps/${app}_p$p.log" >&2; echo "validate_maps.sh: estimate failed for $app at P=$p" >&2; exit 1; }
    python3 - "$out/$app/measured_p$p.json" "$maps/${app}_p$p.json" "$out/$app/estimate.json" "$app" "$p" <<'EOF'
import json, sys
measured, mapped, default, app, p = sys.argv[1:]
m = json.load(open(measured))["total_bytes"]
e = json.load(open(mapped))["procs"][0]["total_bytes"]
d = next(x for x in json.load(open(default))["procs"] if x["n"] == int(p))
acc = 1 - abs(e - m) / m if m else float("nan")
print(f"| {app} | {p} | {m:,} | {e:,} | {100 * acc:.1f}% | {d['total_bytes']:,} | {d.get('distribution', '')} |")
EOF
  done
done < "$out/manifest.tsv"
