#!/usr/bin/env bash
# The recorder's own CPU while the load test measures (store-bound closed loop, as watch-cost.sh):
# `watch --pid` (ring only: a trigger that never fires), or for `--trace` the load-test harness that
# copies the same session's stream to a file. Sampled from /proc every 0.25 s; the figure is the CPU
# the recorder used in the 5.5 s before the worker exits (its measured phase ends then), per million
# requests measured, so run-to-run throughput swings on a shared box cancel out. Alternated ROUNDS
# times. ANALYZER=path/to/TailDb.Analyzer.dll measures another build of watch.
#
#   bash scripts/watch-cpu.sh [ROUNDS] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=${2:-artifacts/watch-cpu}
mkdir -p "$out"
dotnet build src/TailDb.LoadTest -c Release -warnaserror -v q -nologo >/dev/null
dotnet build src/TailDb.Analyzer -c Release -warnaserror -v q -nologo >/dev/null
loadtest=src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll
analyzer=${ANALYZER:-src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll}
args=(--gc workstation --rate max --duration 5 --warmup 3 --app-alloc 0)
tick=$(getconf CLK_TCK)

cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

# Running, not a zombie waiting for the harness to reap it.
alive() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ] && kill -0 "$1" 2>/dev/null; }

worker_of() {
  local worker=""
  for _ in $(seq 1 200); do
    worker=$(pgrep -P "$1" -f "TailDb.LoadTest.dll worker" || true)
    [ -n "$worker" ] && break
    sleep 0.05
  done
  echo "$worker"
}

measure() { # condition log
  local harness worker recorder
  if [ "$1" = trace ]; then
    dotnet "$loadtest" "${args[@]}" --trace "$out/trace.nettrace" > "$2" 2>&1 &
    harness=$!
    worker=$(worker_of "$harness")
    recorder=$harness
  else
    dotnet "$loadtest" "${args[@]}" > "$2" 2>&1 &
    harness=$!
    worker=$(worker_of "$harness")
    dotnet "$analyzer" watch --pid "$worker" --threshold-ms 1000000 --captures "$out/captures" > "$2.watch" 2>&1 &
    recorder=$!
  fi
  : > "$2.samples"
  # Until the worker ends (or the recorder, which follows it): a sample after either is not the measured phase.
  local now cpu
  while alive "$worker"; do
    now=$(date +%s.%N)
    cpu=$(cpu_of "$recorder") || break
    echo "$now $cpu" >> "$2.samples"
    sleep 0.25
  done
  wait
  rm -f "$out/trace.nettrace"
  local seconds tput
  seconds=$(awk -v tick="$tick" 'NF == 2 { t[NR] = $1; c[NR] = $2; n = NR }
    END { for (i = n; i > 1 && t[i] > t[n] - 5.5; i--); printf "%.2f", (c[n] - c[i]) / tick }' "$2.samples")
  tput=$(awk -F'|' '/^workstation +\|/ { gsub(/[ ,]/, "", $2); print $2 }' "$2")
  echo "$seconds $tput"
}

echo "round condition recorder_cpu_s throughput/s cpu_s_per_million_requests load" | tee "$out/runs.txt"
for round in $(seq 1 "$rounds"); do
  for condition in trace watch; do
    read -r seconds tput <<< "$(measure "$condition" "$out/$condition-$round.log")"
    per=$(awk -v s="$seconds" -v t="$tput" 'BEGIN { printf "%.2f", s * 1e6 / (t * 5) }')
    echo "$round $condition $seconds $tput $per $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/runs.txt"
  done
done

awk 'NR > 1 { v[$2] = v[$2] " " $5 }
  function median(list,   a, n, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END { printf "median recorder CPU per million requests: trace %.2f s, watch %.2f s, watch/trace %.2f\n", median(v["trace"]), median(v["watch"]), median(v["watch"]) / median(v["trace"]) }' "$out/runs.txt" | tee "$out/summary.txt"
