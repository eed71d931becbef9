#!/usr/bin/env bash
# Which part of a traced run moves the tail: the default workload in one GC mode, alternated ROUNDS
# times under four conditions, and the corrected p99 / p99.9 / GC pause of each (medians, min-max):
#   untraced    no recording at all
#   perf-only   perf record system-wide with the recorder's own events and rate (cpu-clock at 999 Hz
#               with call chains, sched_switch, sched_wakeup, major faults), the runtime with the perf
#               map on and W^X off as --sampler perf sets it, and no EventPipe session
#   eventpipe   --trace at the default level with --sampler off: the EventPipe session alone
#   traced      --trace --sampler perf: both, as the README's traced flow records
# Take it on a quiet machine; the load average is printed before and after.
#
#   bash scripts/instrument-split.sh [OUT_DIR]     (MODE=workstation ROUNDS=3 DURATION=10 WARMUP=3)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-artifacts/instrument-split}
mode=${MODE:-workstation}; rounds=${ROUNDS:-3}; duration=${DURATION:-10}; warmup=${WARMUP:-3}
command -v perf >/dev/null || { echo "perf not on PATH: run .ci/perf-tools.sh" >&2; exit 2; }
mkdir -p "$out"
dotnet build src/TailDb.LoadTest -c Release -v q -nologo >/dev/null
loadtest=src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll
echo "start $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  for v in untraced perf-only eventpipe traced; do
    args=(--gc "$mode" --duration "$duration" --warmup "$warmup" --out "$out/$v.$r.json")
    echo "round $r: $v ($(cut -d' ' -f1-3 /proc/loadavg))"
    case $v in
      untraced) dotnet "$loadtest" "${args[@]}" > "$out/$v.$r.log" 2>&1 ;;
      perf-only) DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 perf record --all-cpus -k CLOCK_MONOTONIC -g \
                   -e cpu-clock/freq=999/ -e sched:sched_switch/call-graph=no/ -e sched:sched_wakeup/call-graph=no/ -e major-faults/period=1/ \
                   --quiet -o "$out/$v.$r.perf.data" -- dotnet "$loadtest" "${args[@]}" > "$out/$v.$r.log" 2>&1
                 rm -f "$out/$v.$r.perf.data" /tmp/perf-*.map /tmp/perfinfo-*.map ;;
      eventpipe) dotnet "$loadtest" "${args[@]}" --trace "$out/$v.$r.nettrace" --sampler off > "$out/$v.$r.log" 2>&1 ;;
      traced) dotnet "$loadtest" "${args[@]}" --trace "$out/$v.$r.nettrace" --sampler perf > "$out/$v.$r.log" 2>&1 ;;
    esac
  done
done
echo "runs done $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def cell(v): return f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})"
print("| variant | p99 ms | p99.9 ms | GC pause ms | p99 / untraced | p99.9 / untraced |")
print("|---|---|---|---|---|---|")
base = None
for v in ("untraced", "perf-only", "eventpipe", "traced"):
    p99, p999, gc = [], [], []
    for r in range(1, rounds + 1):
        m = json.load(open(f"{out}/{v}.{r}.json"))["modes"][0]["result"]
        p99.append(m["overall"]["corrected"]["p99"] / 1e6); p999.append(m["overall"]["corrected"]["p999"] / 1e6)
        gc.append(m["gcDuringMeasurement"]["pauseMilliseconds"])
    if base is None: base = (statistics.median(p99), statistics.median(p999))
    ratio = "" if v == "untraced" else f"{statistics.median(p99) / base[0]:.2f}x | {statistics.median(p999) / base[1]:.2f}x"
    print(f"| {v} | {cell(p99)} | {cell(p999)} | {cell(gc)} | {ratio or ' | '} |")
PY
echo "end $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
