#!/usr/bin/env bash
# CPU per SET and p99 of two builds of TailDb.Server, alternated: each round starts build A, then
# build B, on a fresh directory, fills 300,000 SETs, then runs redis-benchmark -c 50 -d 256 -r 100000
# -n 1000000 -P 16 -t set while `perf stat -e task-clock` counts the server's CPU (every thread, user
# and kernel). Prints req/s, CPU ns per SET, redis-benchmark's p99 and max (ms) and the load average
# per run, then the medians. CPU per SET moves less with a neighbour's load than req/s does, but
# take it on a quiet machine all the same.
#
#   bash scripts/server-cpu-ab.sh A_DIR B_DIR [ROUNDS] [DURABILITY]    (each DIR holds a built TailDb.Server.dll;
#                                                                     DURABILITY: none, the default, or fsync)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 A_DIR B_DIR [ROUNDS] [none|fsync]" >&2; exit 2; }
a=$1 b=$2 rounds=${3:-3} durability=${4:-none}
case "$durability" in none|fsync) ;; *) echo "durability must be none or fsync, not '$durability'" >&2; exit 2 ;; esac
for dir in "$a" "$b"; do [ -f "$dir/TailDb.Server.dll" ] || { echo "no TailDb.Server.dll in $dir" >&2; exit 2; }; done
command -v perf >/dev/null || { echo "perf not on PATH: run .ci/perf-tools.sh" >&2; exit 2; }
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not on PATH: run .ci/server-tools.sh" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run() { # name dir port
  local d; d=$(mktemp -d -p "$work")
  dotnet "$2/TailDb.Server.dll" --dir "$d" --port "$3" --durability "$durability" --gc server > "$work/$1.log" 2>&1 &
  for _ in $(seq 1 100); do redis-cli -p "$3" PING >/dev/null 2>&1 && break; sleep 0.2; done
  local pid; pid=$(grep -o "pid [0-9]*" "$work/$1.log" | awk '{print $2}')
  redis-benchmark -p "$3" -c 50 -d 256 -r 100000 -n 300000 -P 16 -t set -q > /dev/null 2>&1
  perf stat -e task-clock -p "$pid" -x, -o "$work/$1.stat" -- sleep 600 &
  local stat=$!
  redis-benchmark -p "$3" -c 50 -d 256 -r 100000 -n 1000000 -P 16 -t set 2>&1 | tr '\r' '\n' > "$work/$1.bench"
  local rps; rps=$(grep -m1 "throughput summary" "$work/$1.bench" | awk '{print $3}')
  # The latency summary's row: avg min p50 p95 p99 max (ms).
  local p99max; p99max=$(grep -A2 "latency summary" "$work/$1.bench" | tail -1 | awk '{print $5, $6}')
  # perf stat stops counting when its workload ends (a background job ignores SIGINT here, so end the sleep).
  pkill -P "$stat" sleep || true; wait "$stat" 2>/dev/null || true
  local ms; ms=$(grep task-clock "$work/$1.stat" | cut -d, -f1)
  echo "$1 $rps $(python3 -c "print(round($ms * 1e6 / 1000000))") $p99max $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/rows"
  redis-cli -p "$3" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait
}
echo "durability $durability; start $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); rows: build req/s cpu-ns-per-SET p99-ms max-ms load"
port=$(( 20000 + RANDOM % 12000 ))
for _ in $(seq 1 "$rounds"); do run A "$a" "$port"; run B "$b" $((port + 1)); done
python3 - "$work/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(name, col, kind=float): return statistics.median(kind(x[col]) for x in rows if x[0] == name)
for name in ("A", "B"):
    print(f"{name}: median {med(name, 1):,.0f} req/s, {med(name, 2, int)} CPU ns per SET, p99 {med(name, 3):.2f} ms, max {med(name, 4):.1f} ms")
print(f"B / A CPU per SET: {med('B', 2, int) / med('A', 2, int):.3f}; p99: {med('B', 3) / med('A', 3):.3f}; req/s: {med('B', 1) / med('A', 1):.3f}")
PY
echo "end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
