#!/usr/bin/env bash
# Issue 12's proof that the tail got flatter: the same binary, alternated in one run, on a scenario
# built to hurt (cache at 10% of the keys so it evicts constantly, compaction every 2 s, fsync, nogc
# so GC is out of the picture), beside a calm run (cache 100%, no compaction). Sides:
#   on-request  upkeep on requests (the first design: --upkeep on-request)
#   unpaced     upkeep off requests, compaction copying at full speed at normal priority
#               (--compaction-rate 0 --compaction-priority normal: the store before pacing)
#   paced       the store: compaction paced (32 MiB/s, 1 MiB writeback ranges) at low priority
#   calm        cache 100%, no compaction
# Then one traced run of each upkeep side and the analyzer's verdict and upkeep rows on it.
#
#   bash scripts/upkeep-before-after.sh [OUT_DIR]     (ROUNDS=3 RATE=1000 DURATION=10 KEYS=100000 SIDES="on-request unpaced paced calm")
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-artifacts/upkeep}
rounds=${ROUNDS:-3}
rate=${RATE:-1000}
duration=${DURATION:-10}
keys=${KEYS:-100000}
sides=(${SIDES:-on-request unpaced paced calm})
traced=(${TRACED:-on-request unpaced paced})
mkdir -p "$out"
dotnet build src/TailDb.LoadTest -c Release -v q -nologo >/dev/null
dotnet build src/TailDb.Analyzer -c Release -v q -nologo >/dev/null
loadtest=(dotnet src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll)
analyzer=(dotnet src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll)
common=(--gc nogc --durability fsync --rate "$rate" --duration "$duration" --warmup 3 --keys "$keys")
hurt=(--cache-fraction 0.1 --compact-every 2)

side_args() { # side -> the load test's arguments for it
  case $1 in
    on-request) echo "${hurt[*]} --upkeep on-request" ;;
    unpaced) echo "${hurt[*]} --upkeep background --compaction-rate 0 --compaction-priority normal" ;;
    paced) echo "${hurt[*]} --upkeep background" ;;
    calm) echo "--cache-fraction 1.0 --compact-every 0" ;;
    *) echo "unknown side $1" >&2; exit 2 ;;
  esac
}

run() { # name, side
  local name=$1
  # shellcheck disable=SC2046
  "${loadtest[@]}" "${common[@]}" $(side_args "$2") --out "$out/$name.json" >"$out/$name.txt" 2>&1 || { echo "run $name failed: $(tail -n 1 "$out/$name.txt")"; exit 1; }
}

echo "load: $(uptime | sed 's/.*load average: //')"
for r in $(seq 1 "$rounds"); do
  for side in "${sides[@]}"; do
    run "$side-$r" "$side"
  done
done
echo "load: $(uptime | sed 's/.*load average: //')"

python3 - "$out" "$rounds" "${sides[@]}" <<'PY'
import json, statistics, sys
out, rounds, sides = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def pct(name):
    m = json.load(open(f"{out}/{name}.json"))["modes"][0]["result"]["overall"]["corrected"]
    return m["p99"] / 1e6, m["p999"] / 1e6
print("| run | round | p99 ms | p99.9 ms |")
print("|---|---:|---:|---:|")
med = {}
for side in sides:
    rows = [pct(f"{side}-{r}") for r in range(1, rounds + 1)]
    for r, (p99, p999) in enumerate(rows, 1):
        print(f"| {side} | {r} | {p99:.3f} | {p999:.3f} |")
    med[side] = (statistics.median(x[0] for x in rows), statistics.median(x[1] for x in rows))
print()
for side, (p99, p999) in med.items():
    print(f"median {side}: p99 {p99:.3f} ms, p99.9 {p999:.3f} ms")
if "calm" in med:
    for side in med:
        if side != "calm":
            print(f"{side} / calm: p99 {med[side][0] / med['calm'][0]:.2f}x, p99.9 {med[side][1] / med['calm'][1]:.2f}x (goal p99.9 <= 1.5x)")
PY
for side in "${sides[@]}"; do
  grep -h '^compactions' "$out/$side-"*.txt 2>/dev/null | sed "s/^/$side: /" | head -n "$rounds" || true
done

for side in "${traced[@]}"; do
  # shellcheck disable=SC2046
  "${loadtest[@]}" "${common[@]}" $(side_args "$side") --trace "$out/$side.nettrace" >"$out/$side-traced.txt" 2>&1
  echo
  echo "== slowest, $side (traced run: $(grep -E '^nogc ' "$out/$side-traced.txt" | head -n 1))"
  "${analyzer[@]}" slowest "$out/$side.nettrace" >"$out/$side-slowest.txt" 2>&1
  grep -A1 '^VERDICT' "$out/$side-slowest.txt" | tail -n 1
  grep -E 'slow set = |^  cause |^  store .*upkeep\)' "$out/$side-slowest.txt" | head -n 4
done
