#!/usr/bin/env bash
# Stack readers: smoke and speed. Records a request storm with the sample profiler on (or takes
# TRACE), checks that the streaming reader and TraceLog name the same frames for every sample, then
# times, each in its own process with peak memory from /usr/bin/time:
#   tracelog-convert    TraceLog.CreateFromEventPipeDataFile alone (what PerfView / dotnet-trace report do first)
#   tracelog            that plus reading every sample's stack (the oracle reader)
#   nettrace            NetTraceStackSampleReader alone
#   eventpipe+nettrace  one EventPipeEventSource pass plus the stack reader (the analyzer's shape)
#   slowest             the whole `TailDb.Analyzer slowest` command, when this tree has it
# Fails only on wrong results; the timings are printed (a shared CI box is too noisy to gate on).
# usage: .ci/stacks.sh [OUT_DIR] [TRACE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-artifacts/smoke}
mkdir -p "$out"
gen=tests/TailDb.Analyzer.Tests.TraceGen/bin/Release/net10.0/TailDb.Analyzer.Tests.TraceGen.dll
analyzer=${ANALYZER_DLL:-src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll}
[ -f "$gen" ] || dotnet build tests/TailDb.Analyzer.Tests.TraceGen -c Release -warnaserror > /dev/null

trace=${2:-}
recorded=0
if [ -z "$trace" ]; then
  trace="$out/stacks-storm.nettrace"
  dotnet "$gen" record "$trace" storm 4 5
  recorded=1
fi
echo "trace: $trace ($(( $(stat -c %s "$trace") / 1000000 )) MB)"

dotnet "$gen" compare "$trace"

timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "%e %M %U %S" -o "$out/stacks-time.txt")
declare -A wall peak user sys
for what in tracelog-convert tracelog nettrace eventpipe+nettrace; do
  "${timer[@]}" dotnet "$gen" measure "$what" "$trace"
  if [ ${#timer[@]} -gt 0 ]; then
    read -r wall[$what] peak[$what] user[$what] sys[$what] < "$out/stacks-time.txt"
    echo "  $what: ${wall[$what]} s wall, ${user[$what]} s user + ${sys[$what]} s sys, $(( ${peak[$what]} / 1024 )) MB peak RSS"
  fi
done

if [ ${#timer[@]} -gt 0 ]; then
  awk -v a="${wall[tracelog-convert]}" -v b="${wall[eventpipe+nettrace]}" -v n="${wall[nettrace]}" -v m="${peak[eventpipe+nettrace]}" 'BEGIN {
    printf "TraceLog conversion / (EventPipe pass + stack reader): %.1fx (goal >= 2x); / stack reader alone: %.1fx; peak %d MB (goal <= 1024 MB)\n", a / b, a / n, m / 1024 }'
fi

if dotnet "$analyzer" slowest --help > /dev/null 2>&1; then
  "${timer[@]}" dotnet "$analyzer" slowest "$trace" > "$out/stacks-slowest.txt"
  grep -m1 -A2 VERDICT "$out/stacks-slowest.txt" || true
  if [ ${#timer[@]} -gt 0 ]; then
    read -r wall[slowest] peak[slowest] user[slowest] sys[slowest] < "$out/stacks-time.txt"
    awk -v a="${wall[tracelog-convert]}" -v s="${wall[slowest]}" -v m="${peak[slowest]}" \
        -v ac="${user[tracelog-convert]}" -v as="${sys[tracelog-convert]}" -v sc="${user[slowest]}" -v ss="${sys[slowest]}" 'BEGIN {
      printf "  slowest: %.2f s wall, %.2f s user + %.2f s sys, %d MB peak RSS\n", s, sc, ss, m / 1024
      printf "TraceLog conversion / slowest: %.1fx wall, %.1fx CPU (goal >= 2x); slowest peak %d MB (goal <= 1024 MB)\n", a / s, (ac + as) / (sc + ss), m / 1024 }'
  fi
else
  echo "slowest: not measured ($analyzer has no slowest command)"
fi
[ "$recorded" -eq 0 ] || rm -f "$trace"
