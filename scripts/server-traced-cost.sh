#!/usr/bin/env bash
# What tracing costs a served request (issue 12): redis-benchmark against one TailDb server,
# untraced and traced alternated in each round (the order flips every round), where "traced" is
# `TailDb.Analyzer record --pid` attached with the recording the docs use for a server (the load
# test's providers, TailDb-Server added, no CPU samples). Prints requests/s per run and the
# traced/untraced ratio per test (median over rounds).
#
#   bash scripts/server-traced-cost.sh [--rounds N] [--n N] [--pipeline P] [--out DIR]
#
# Needs: the .NET SDK and redis-tools (installed with apt when absent).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
n=200000
pipeline=1
out=artifacts/server-traced-cost
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --pipeline) pipeline=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown flag: $1" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$n" =~ ^[1-9][0-9]*$ && "$pipeline" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds, --n and --pipeline take positive integers" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/*.csv "$out"/*.nettrace "$out"/*.log

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

bench() { # $1: file for the csv
  redis-benchmark -p "$port" -c 50 -d 256 -r 100000 -n "$n" -P "$pipeline" -t set,get --csv > "$1"
}

# Warm the server (JIT, keys) before the first measured run.
redis-benchmark -p "$port" -c 50 -d 256 -r 100000 -n "$n" -P "$pipeline" -t set,get -q > /dev/null

traced() { # $1: round
  local trace="$out/round$1.nettrace" log="$out/record$1.log"
  dotnet "$analyzer_dll" record --pid "$server_pid" --no-samples --provider TailDb-Server -o "$trace" > "$log" 2>&1 &
  recorder_pid=$!
  for _ in $(seq 1 300); do
    grep -q "^recording process" "$log" && break
    sleep 0.1
  done
  grep -q "^recording process" "$log" || { echo "the recorder did not start: $(cat "$log")" >&2; exit 1; }
  bench "$out/traced$1.csv"
  kill -TERM "$recorder_pid"  # SIGINT would be ignored: a background job of a script inherits SIGINT ignored
  wait "$recorder_pid" || true
  recorder_pid=""
}

for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    bench "$out/untraced$r.csv"; traced "$r"
  else
    traced "$r"; bench "$out/untraced$r.csv"
  fi
  echo "round $r done (load $(cut -d' ' -f1 /proc/loadavg))"
done

python3 - "$out" "$rounds" "$pipeline" <<'EOF'
import csv, statistics, sys
out, rounds, pipeline = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rps(path):
    with open(path) as f:
        return {row[0]: float(row[1]) for row in csv.reader(f) if row and row[0] != "test"}
print(f"| round | test | untraced req/s | traced req/s | traced/untraced |")
print("|---|---|---|---|---|")
ratios = {}
for r in range(1, rounds + 1):
    u, t = rps(f"{out}/untraced{r}.csv"), rps(f"{out}/traced{r}.csv")
    for test in u:
        ratio = t[test] / u[test]
        ratios.setdefault(test, []).append(ratio)
        print(f"| {r} | {test} | {u[test]:,.0f} | {t[test]:,.0f} | {ratio:.3f} |")
for test, values in ratios.items():
    print(f"{test} -P {pipeline}: traced/untraced median {statistics.median(values):.3f} over {len(values)} rounds (goal >= 0.95)")
EOF
