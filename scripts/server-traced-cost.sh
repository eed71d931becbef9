#!/usr/bin/env bash
# What tracing costs a served request (issues 12 and 25): redis-benchmark against one TailDb
# server, untraced and traced at each --trace-level (requests: the server's Command events and the
# store's upkeep; store: the store's Get/Put/FileRead/Fsync nested in them too), the variants
# rotated round by round (round 1: untraced, requests, store; round 2: requests, store, untraced;
# ...). "Traced" is `TailDb.Analyzer record --pid` attached with the recording the docs use for a
# server (the load test's providers, TailDb-Server added, no TplEventSource, no per-event stacks;
# no CPU samples unless --sampler says). Prints requests/s per run with the load average before
# it, and per test and level the traced/untraced ratio (within a round; median, min-max over
# rounds) against the goal (>= 0.8). With perf on the PATH it also counts the server's CPU per
# request (`perf stat -e task-clock` on every thread of the server, during each test): at -P 1 the
# throughput is the clients' round trips on a shared machine and moves 20-30% between runs, while
# the CPU a traced request adds is what the trace costs the server itself. Take it on a quiet machine.
#
# Each run starts --settle seconds (default 2) after the recorder is attached, and the untraced run
# the same time after the one before it: the recorder's own start (a .NET process JIT-compiling its
# stream pump on the same two cores) is the attach's one-off cost, not a traced request's, and fell
# on whichever test ran first (SET) when the runs began at once. So is the server's code for its
# traced paths (CommandStart/Stop, a traced SET batch, the store's Put events), which reaches its
# optimized tier only once traced requests run: before each run, --warm N SETs and N GETs (default
# 20000; untraced runs too), unmeasured, then the settle. With --warm 0, a perf profile of the
# traced SET run (run first) showed the tiering thread's JIT at 2.7% of the server's samples and
# the traced SET's extra CPU at 2.9x the traced GET's (2026-11-28 19:20 UTC).
#
#   bash scripts/server-traced-cost.sh [--rounds N] [--n N] [--pipeline P] [--levels requests,store] [--sampler off|perf|eventpipe] [--settle S] [--warm N] [--out DIR]
#
# A short check that it runs (numbers meaningless): bash scripts/server-traced-cost.sh --rounds 1 --n 20000
#
# Needs: the .NET SDK and redis-tools (installed with apt when absent).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
n=200000
pipeline=1
levels=requests,store
sampler=off
settle=2
warm=20000
out=artifacts/server-traced-cost
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --pipeline) pipeline=$2; shift 2 ;;
    --levels) levels=$2; shift 2 ;;
    --sampler) sampler=$2; shift 2 ;;
    --settle) settle=$2; shift 2 ;;
    --warm) warm=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown flag: $1" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$n" =~ ^[1-9][0-9]*$ && "$pipeline" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds, --n and --pipeline take positive integers" >&2; exit 2; }
[[ "$settle" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "--settle takes seconds (0 or more)" >&2; exit 2; }
[[ "$warm" =~ ^[0-9]+$ ]] || { echo "--warm takes a number of requests (0 or more)" >&2; exit 2; }
mkdir -p "$out"
[[ "$levels" =~ ^(requests|store)(,(requests|store))*$ ]] || { echo "--levels takes requests, store or both, comma-separated" >&2; exit 2; }
[[ "$sampler" =~ ^(off|perf|eventpipe)$ ]] || { echo "--sampler takes off, perf or eventpipe" >&2; exit 2; }
IFS=, read -r -a traced_levels <<< "$levels"
variants=(untraced "${traced_levels[@]}")
rm -f "$out"/*.csv "$out"/*.cpu "$out"/*.nettrace "$out"/*.log "$out"/*.load "$out"/*.perf.gz

if ! command -v redis-benchmark >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq redis-tools >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq redis-tools >/dev/null; }
fi
dotnet build src/TailDb.Server -c Release -warnaserror -v q >/dev/null
dotnet build src/TailDb.Analyzer -c Release -warnaserror -v q >/dev/null
server_dll=src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll
analyzer_dll=src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll

port=6397
data=$(mktemp -d)
server_pid=""
recorder_pid=""
cleanup() {
  [ -n "$recorder_pid" ] && kill "$recorder_pid" 2>/dev/null
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$data"
  true
}
trap cleanup EXIT

dotnet "$server_dll" --dir "$data" --port "$port" > "$out/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
  redis-cli -p "$port" PING 2>/dev/null | grep -q PONG && break
  sleep 0.1
done
redis-cli -p "$port" PING | grep -q PONG || { echo "the server did not answer PING" >&2; exit 1; }

# Each test its own redis-benchmark run, so the server's CPU is counted per test (a .cpu file of
# "test,ns per request" lines beside the .csv).
bench() { # $1: file for the csv
  : > "$1"; : > "${1%.csv}.cpu"
  for test in set get; do
    local stat="" stat_pid=""
    if command -v perf >/dev/null; then
      stat=$(mktemp)
      perf stat -e task-clock -p "$server_pid" -x, -o "$stat" -- sleep 3600 &
      stat_pid=$!
    fi
    redis-benchmark -p "$port" -c 50 -d 256 -r 100000 -n "$n" -P "$pipeline" -t "$test" --csv >> "$1"
    if [ -n "$stat_pid" ]; then
      # perf stat ends its count when its workload ends; a background job ignores SIGINT, so end the sleep.
      pkill -P "$stat_pid" sleep || true
      wait "$stat_pid" 2>/dev/null || true
      local ms; ms=$(grep task-clock "$stat" | cut -d, -f1)
      rm -f "$stat"
      [ -n "$ms" ] && echo "${test^^},$(python3 -c "print(round($ms * 1e6 / $n))")" >> "${1%.csv}.cpu"
    fi
  done
}

# Warm the server (JIT, keys) before the first measured run.
redis-benchmark -p "$port" -c 50 -d 256 -r 100000 -n "$n" -P "$pipeline" -t set,get -q > /dev/null

# Before each run, unmeasured: the paths that run only while traced reach their optimized tier.
warmup() {
  [ "$warm" -gt 0 ] && redis-benchmark -p "$port" -c 50 -d 256 -r 100000 -n "$warm" -P "$pipeline" -t set,get -q > /dev/null
  sleep "$settle"
}

traced() { # $1: round, $2: level
  local trace="$out/$2$1.nettrace" log="$out/record-$2$1.log"
  dotnet "$analyzer_dll" record --pid "$server_pid" --sampler "$sampler" --trace-level "$2" --provider TailDb-Server -o "$trace" > "$log" 2>&1 &
  recorder_pid=$!
  for _ in $(seq 1 300); do
    grep -q "^recording process" "$log" && break
    sleep 0.1
  done
  grep -q "^recording process" "$log" || { echo "the recorder did not start: $(cat "$log")" >&2; exit 1; }
  warmup
  bench "$out/$2$1.csv"
  kill -TERM "$recorder_pid"  # SIGINT would be ignored: a background job of a script inherits SIGINT ignored
  wait "$recorder_pid" || true
  recorder_pid=""
}

echo "start $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; -P $pipeline, -n $n, levels $levels, sampler $sampler, settle ${settle}s, warm $warm"
count=${#variants[@]}
for r in $(seq 1 "$rounds"); do
  for k in $(seq 0 $((count - 1))); do
    variant=${variants[$(( (k + r - 1) % count ))]}
    cut -d' ' -f1-3 /proc/loadavg > "$out/$variant$r.load"
    if [ "$variant" = untraced ]; then warmup; bench "$out/untraced$r.csv"; else traced "$r" "$variant"; fi
    echo "round $r: $variant done (load average before: $(cat "$out/$variant$r.load"))"
  done
done
echo "end $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "$rounds" "$pipeline" "$levels" <<'EOF'
import csv, statistics, sys
out, rounds, pipeline, levels = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(",")
goal = 0.8
def rps(path):
    with open(path) as f:
        return {row[0]: float(row[1]) for row in csv.reader(f) if row and row[0] != "test"}
def cpu(path):  # bench() always writes it; empty without perf
    with open(path) as f:
        return {row[0]: float(row[1]) for row in csv.reader(f) if row}
print()
print("| round | test | variant | load average before | req/s | traced/untraced (this round) |")
print("|---|---|---|---|---|---|")
ratios, tput, cpus, cpu_ratios = {}, {}, {}, {}
for r in range(1, rounds + 1):
    u = rps(f"{out}/untraced{r}.csv")
    uc = cpu(f"{out}/untraced{r}.cpu")
    for variant in ["untraced"] + levels:
        t = rps(f"{out}/{variant}{r}.csv")
        tc = cpu(f"{out}/{variant}{r}.cpu")
        for test, ns in tc.items():
            cpus.setdefault((test, variant), []).append(ns)
            if variant != "untraced" and test in uc:
                cpu_ratios.setdefault((test, variant), []).append(ns / uc[test])
        load = open(f"{out}/{variant}{r}.load").read().strip()
        for test in u:
            tput.setdefault((test, variant), []).append(t[test])
            ratio = ""
            if variant != "untraced":
                ratios.setdefault((test, variant), []).append(t[test] / u[test])
                ratio = f"{t[test] / u[test]:.3f}"
            print(f"| {r} | {test} | {variant} | {load} | {t[test]:,.0f} | {ratio} |")
print()
print(f"| test (-P {pipeline}) | variant | req/s median (min-max) | traced/untraced median (min-max) | goal |")
print("|---|---|---|---|---|")
for (test, variant), values in tput.items():
    cells = f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})"
    if variant == "untraced":
        print(f"| {test} | untraced | {cells} | | |")
        continue
    q = ratios[(test, variant)]
    m = statistics.median(q)
    print(f"| {test} | {variant} | {cells} | {m:.3f} ({min(q):.3f}-{max(q):.3f}) | >= {goal} {'met' if m >= goal else 'missed'} |")
if cpus:
    print()
    print(f"| test (-P {pipeline}) | variant | server CPU per request, ns: median (min-max) | traced/untraced CPU median (min-max) |")
    print("|---|---|---|---|")
    for (test, variant), values in cpus.items():
        cells = f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})"
        q = cpu_ratios.get((test, variant))
        ratio = f"{statistics.median(q):.3f} ({min(q):.3f}-{max(q):.3f})" if q else ""
        print(f"| {test} | {variant} | {cells} | {ratio} |")
EOF
