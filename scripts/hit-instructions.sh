#!/usr/bin/env bash
# Instructions per call of benchmark methods, counted by single-stepping them under gdb: a count
# that does not move with the machine's load (this machine's virtual CPU has no hardware counters,
# so perf stat cannot count instructions; docs/benchmarks.md, "Instructions per hit").
#
#   bash scripts/hit-instructions.sh [Class.Method ...]     (default: the GetHit pair)
#
# Each method runs in a process of its own (tests/TailDb.Benchmarks --park: its [GlobalSetup],
# quick scale, warmed to tier 1), as BenchmarkDotNet runs each row. Needs gdb (apt-get install gdb)
# and a Release build of tests/TailDb.Benchmarks. Prints each call's count and the mean; keeps the
# first call's annotated trace in artifacts/hit-instructions/<Method>.trace.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v gdb > /dev/null || { echo "gdb not on PATH: apt-get install -y gdb" >&2; exit 2; }
dll=tests/TailDb.Benchmarks/bin/Release/net10.0/TailDb.Benchmarks.dll
[ -f "$dll" ] || { echo "build first: dotnet build tests/TailDb.Benchmarks -c Release" >&2; exit 2; }
methods=("$@")
[ ${#methods[@]} -gt 0 ] || methods=(GetHitBenchmarks.BareDictionaryLookupAndCopy GetHitBenchmarks.ZeroCopyTryGet)
calls=${STEP_CALLS:-16}
out=artifacts/hit-instructions
mkdir -p "$out"

for method in "${methods[@]}"; do
  work=$(mktemp -d)
  : > "$work/log"
  # W^X off: gdb writes its breakpoints into the JIT's code pages. The perf map names the code.
  DOTNET_EnableWriteXorExecute=0 DOTNET_PerfMapEnabled=1 TAILDB_PARK_UNTIL="$work/done" \
    dotnet "$dll" --park "$method" > "$work/log" 2>&1 &
  host=$!
  for _ in $(seq 240); do grep -q '^parked' "$work/log" && break; kill -0 $host 2> /dev/null || break; sleep 0.5; done
  pid=$(sed -n 's/^parked .* pid \([0-9]*\)$/\1/p' "$work/log")
  if [ -z "$pid" ]; then cat "$work/log" >&2; kill $host 2> /dev/null || true; rm -rf "$work"; exit 1; fi
  STEP_METHOD="${method##*.}" STEP_CALLS=$calls STEP_TRACE="$out/${method##*.}.trace" \
    timeout 600 gdb -q -batch -p "$pid" -x scripts/step-instructions.py > "$work/gdb" 2>&1 || true
  touch "$work/done"
  wait $host || true
  rm -f "/tmp/perf-$pid.map" "/tmp/perfinfo-$pid.map"
  grep -E '^call ' "$work/gdb" > "$work/calls" || { cat "$work/gdb" >&2; rm -rf "$work"; exit 1; }
  awk -v m="$method" '{ n++; i += $4; b += $6 } END { printf "%s: %.1f instructions, %.1f branches per call (mean of %d calls)\n", m, i / n, b / n, n }' "$work/calls"
  sed 's/^/  /' "$work/calls"
  rm -rf "$work"
done
