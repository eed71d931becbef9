#!/usr/bin/env bash
# What `TailDb.Analyzer watch` costs the traced process, beside the plain recording: the load test
# (workstation GC) alternated ROUNDS times under three conditions in one run:
#   none   no session
#   trace  the load test's own --trace FILE.nettrace (same providers, samples on, event stacks off)
#   watch  `TailDb.Analyzer watch --pid <worker>` attached during the warm-up (same providers), a
#          trigger that fires at most once (--threshold-ms 100 --max-captures 1)
# Prints each run's throughput and p99 (the load test's summary row), the medians, the ratios
# watch/trace and watch/none, and for watch its own CPU (user+sys, its report children included), its
# own peak RSS (VmHWM, from its last line), the peak RSS of it and its report children together
# (/usr/bin/time -v: the largest of them, which is the report's when a capture is as large as the
# ring) and the captures it wrote.
# WORKLOAD: closed (default) = store-bound closed loop (--rate max --app-alloc 0): throughput is the
# cost; open = the load test's default open loop (4,000 requests/s, 16 KiB of garbage per
# request): throughput is the offered rate, the p99 is the cost.
#
# WATCH_THRESHOLD_MS (default 100): the trigger; a large one measures the ring alone.
# SAMPLER (perf, eventpipe or off; default: each tool's own, perf where it can run): the sampler of
# both the --trace run and the watch (with perf, the watch's CPU includes its perf, a child it reaps).
#
#   bash scripts/watch-cost.sh [ROUNDS] [DURATION_S] [OUT_DIR] [MAX_BYTES] [WORKLOAD]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
duration=${2:-5}
out=${3:-artifacts/watch-cost}
max_bytes=${4:-67108864}
workload=${5:-closed}
warmup=3
mkdir -p "$out"
dotnet build src/TailDb.LoadTest -c Release -warnaserror -v q -nologo >/dev/null
dotnet build src/TailDb.Analyzer -c Release -warnaserror -v q -nologo >/dev/null
loadtest=src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll
analyzer=src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll
# Store-bound (--app-alloc 0): with the default 16 KiB of garbage per request, GC dynamics set the
# throughput and a session can even speed it up (docs/loadtest.md), which says nothing about cost.
case "$workload" in
  closed) args=(--gc workstation --rate max --duration "$duration" --warmup "$warmup" --app-alloc 0) ;;
  open) args=(--gc workstation --duration "$duration" --warmup "$warmup") ;;
  *) echo "WORKLOAD is closed or open, not '$workload'" >&2; exit 2 ;;
esac

summary() { # the load test's summary row: throughput/s and p99 (ms)
  awk -F'|' '/^workstation +\|/ { gsub(/[ ,]/, "", $2); gsub(/ /, "", $4); print $2, $4 }' "$1" | tail -n 1
}

run_none() { dotnet "$loadtest" "${args[@]}" > "$1" 2>&1; }

sampler=(${SAMPLER:+--sampler "$SAMPLER"})

run_trace() { dotnet "$loadtest" "${args[@]}" --trace "$out/trace.nettrace" "${sampler[@]}" > "$1" 2>&1; rm -f "$out/trace.nettrace" "$out/trace.perf.gz"; }

run_watch() {
  dotnet "$loadtest" "${args[@]}" > "$1" 2>&1 &
  local harness=$! worker=""
  for _ in $(seq 1 100); do
    worker=$(pgrep -P "$harness" -f "TailDb.LoadTest.dll worker" || true)
    [ -n "$worker" ] && break
    sleep 0.05
  done
  [ -n "$worker" ] || { echo "no worker under $harness" >&2; wait "$harness"; return 1; }
  rm -rf "$out/captures"
  /usr/bin/time -v dotnet "$analyzer" watch --pid "$worker" --threshold-ms "${WATCH_THRESHOLD_MS:-100}" --max-captures 1 \
    --max-bytes "$max_bytes" --captures "$out/captures" "${sampler[@]}" > "$1.watch" 2> "$1.time" || true
  wait "$harness"
}

echo "round condition throughput/s p99_ms watch_cpu_s watch_peak_rss_MiB with_report_MiB captures load" | tee "$out/runs.txt"
for round in $(seq 1 "$rounds"); do
  for condition in none trace watch; do
    log="$out/$condition-$round.log"
    "run_$condition" "$log"
    read -r tput p99 <<< "$(summary "$log")"
    cpu="-" own="-" rss="-" captures="-"
    if [ "$condition" = watch ]; then
      cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u + s}' "$log.time")
      own=$(awk '/^watch process peak memory/ {printf "%.0f", $5}' "$log.watch")
      rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$log.time")
      captures=$(grep -o '[0-9,]* captures' "$log.watch" | tail -n 1 | cut -d' ' -f1)
    fi
    echo "$round $condition $tput $p99 $cpu ${own:-?} $rss ${captures:-?} $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/runs.txt"
  done
done

awk 'NR > 1 { t[$2] = t[$2] " " $3; p[$2] = p[$2] " " $4 }
  function median(list,   a, n, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (c in t) { mt[c] = median(t[c]); mp[c] = median(p[c]); printf "median %-5s throughput %10.0f/s  p99 %s ms\n", c, mt[c], mp[c] }
    printf "watch/trace throughput %.3f (goal >= 0.97), watch/none %.3f, trace/none %.3f\n", mt["watch"] / mt["trace"], mt["watch"] / mt["none"], mt["trace"] / mt["none"]
    printf "watch/trace p99 %.3f, watch/none p99 %.3f, trace/none p99 %.3f\n", mp["watch"] / mp["trace"], mp["watch"] / mp["none"], mp["trace"] / mp["none"]
  }' "$out/runs.txt" | tee "$out/summary.txt"
