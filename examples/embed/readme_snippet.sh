#!/usr/bin/env bash
# readme_snippet.sh README.md SNIPPET.cc SHIFTED.cc: writes the first c++
# block under README's "## Embedding the library" to SNIPPET.cc, and to
# SHIFTED.cc the same block reading a[i + 1] where it reads a[i].
set -euo pipefail
readme="$1" snippet="$2" shifted="$3"
awk '/^## Embedding the library$/ { under = 1; next }
     under && /^## / { exit }
     under == 1 && /^```c\+\+$/ { under = 2; next }
     under == 2 && /^```$/ { exit }
     under == 2 { print }' "$readme" > "$snippet"
if ! grep -q 'int main' "$snippet"; then
  echo "README.md: no c++ block with a main under '## Embedding the library'" >&2
  exit 1
fi
sed 's/ca\.load(a + 8 \* i, 8)/ca.load(a + 8 * (i + 1), 8)/' "$snippet" > "$shifted"
if cmp -s "$snippet" "$shifted"; then
  echo "README.md: the embedding example has no 'ca.load(a + 8 * i, 8)' to shift" >&2
  exit 1
fi
