#!/usr/bin/env bash
# Tests for the CommAnalyzer pass plugin with the tracing runtime.
#
# For each test program and each optimisation level (-O0 ... -O3):
#   1. build it with the plugin + instrument/trace_runtime.c, and without;
#   2. run both: stdout and exit code must be identical;
#   3. the trace (INPUT/VALUE/COPY lines) must equal <test>.<level>.expected
#      exactly, ignoring lines starting with '#' (comments) and blank lines.
#      The estimate must not depend on the -O level (DESIGN.md), so a C test
#      without an expected file for its level is held to <test>.O1.expected:
#      one trace at every level. C++ tests (whose library code stays in
#      memory at -O0 and is inlined differently above -O1) and tests without
#      any expected file only get step 2.
# Exits non-zero on any mismatch. Actual traces are kept in $WORK.
#
# Environment: CLANG, CLANGXX (clang-16, clang++-16), LLVM_CONFIG,
# PLUGIN (prebuilt libCommAnalyzerPass.so; built from instrument/pass.cpp and
# instrument/pass/ if unset), WORK (scratch directory; a temporary one if unset).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
INSTR=$(cd "$HERE/.." && pwd)
CLANG=${CLANG:-clang-16}
CLANGXX=${CLANGXX:-clang++-16}
LLVM_CONFIG=${LLVM_CONFIG:-/usr/lib/llvm-16/bin/llvm-config}
WORK=${WORK:-$(mktemp -d /tmp/ca-trace-tests.XXXXXX)}
mkdir -p "$WORK"
FLAGS="-fno-vectorize -fno-slp-vectorize -g0"

die() { echo "FATAL: $*" >&2; exit 2; }

if [ -z "${PLUGIN:-}" ]; then
  PLUGIN=$WORK/libCommAnalyzerPass.so
  g++ -shared -fPIC $($LLVM_CONFIG --cxxflags) -fno-rtti "$INSTR/pass.cpp" "$INSTR"/pass/*.cpp \
    -o "$PLUGIN" $($LLVM_CONFIG --ldflags) -lLLVM-16 || die "plugin build failed"
fi
"$CLANG" -O1 -c "$INSTR/trace_runtime.c" -o "$WORK/trace_runtime.o" ||
  die "trace runtime build failed"
"$CLANG" -O1 -c "$HERE/ext_uninstrumented.c" -o "$WORK/ext_uninstrumented.o" ||
  die "ext_uninstrumented build failed"

# name:source:extra objects (uninstrumented)
TESTS="
fig7:fig7.c:
indirect:indirect.c:
calls:calls.c:ext_uninstrumented.o
libm:libm.c:
memcpy:memcpy.c:
byval:byval.c:
mixed_struct:mixed_struct.c:
classes:classes.cpp:
same_output:same_output.c:
"

fail=0
pass=0
for t in $TESTS; do
  IFS=: read -r name src extra <<<"$t"
  case $src in *.cpp) cc=$CLANGXX ;; *) cc=$CLANG ;; esac
  objs=""
  [ -n "$extra" ] && objs="$WORK/$extra"
  for O in O0 O1 O2 O3; do
    id="$name.$O"
    exe_i=$WORK/$id.instr exe_u=$WORK/$id.plain
    if ! $cc -$O $FLAGS -fpass-plugin="$PLUGIN" "$HERE/$src" $objs \
        "$WORK/trace_runtime.o" -lm -o "$exe_i" 2>"$WORK/$id.build.log"; then
      echo "FAIL $id: instrumented build (see $WORK/$id.build.log)"
      fail=$((fail + 1)); continue
    fi
    $cc -$O $FLAGS "$HERE/$src" $objs -lm -o "$exe_u" || {
      echo "FAIL $id: plain build"; fail=$((fail + 1)); continue; }
    CA_TRACE=$WORK/$id.trace "$exe_i" >"$WORK/$id.instr.out" 2>"$WORK/$id.instr.err"
    rc_i=$?
    "$exe_u" >"$WORK/$id.plain.out" 2>/dev/null
    rc_u=$?
    ok=1
    if [ $rc_i -ne $rc_u ]; then
      echo "FAIL $id: exit code $rc_i instrumented vs $rc_u plain"; ok=0
    fi
    if ! cmp -s "$WORK/$id.instr.out" "$WORK/$id.plain.out"; then
      echo "FAIL $id: stdout differs"
      diff "$WORK/$id.plain.out" "$WORK/$id.instr.out" | head -20; ok=0
    fi
    if [ ! -s "$WORK/$id.trace" ]; then
      echo "FAIL $id: empty trace"; ok=0
    fi
    exp=$HERE/$id.expected
    case $src in *.c) [ -f "$exp" ] || exp=$HERE/$name.O1.expected ;; esac
    if [ -f "$exp" ]; then
      grep -v -e '^#' -e '^[[:space:]]*$' "$exp" >"$WORK/$id.expected.clean"
      if ! diff -u "$WORK/$id.expected.clean" "$WORK/$id.trace" >"$WORK/$id.diff"; then
        echo "FAIL $id: trace differs from $(basename "$exp")"
        head -40 "$WORK/$id.diff"; ok=0
      fi
    fi
    if [ $ok = 1 ]; then
      pass=$((pass + 1)); echo "ok   $id$([ -f "$exp" ] || echo ' (behaviour only)')"
    else
      fail=$((fail + 1))
    fi
  done
done

echo "$pass passed, $fail failed (work dir: $WORK)"
[ $fail -eq 0 ]
