#!/usr/bin/env bash
# What tracing costs the closed-loop load test (issue 25): `--rate max` throughput untraced and
# traced at each --trace-level (requests, store), with the kernel sampler (perf) beside the
# EventPipe session. The three variants run in every round, the order rotated round by round
# (round 1: untraced, requests, store; round 2: requests, store, untraced; ...), so a drift in the
# machine's load falls on each variant alike. Prints every run with the load average before it,
# then per variant the median (min-max) of the requests per second, and each traced level's
# traced/untraced ratio (the ratio is taken within a round, then the median over rounds) against
# its goal, with the trace's size and events per request. Take it on a quiet machine.
#
#   bash scripts/traced-cost.sh [--rounds N] [--duration S] [--warmup S] [--gc MODE] [--sampler perf|eventpipe|off] [--out DIR] [-- load-test flags...]
#
# A short check that it runs (numbers meaningless):
#   bash scripts/traced-cost.sh --rounds 1 --duration 1 --warmup 0.5 -- --keys 2000
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
duration=10
warmup=3
gc=workstation
sampler=perf
out=artifacts/traced-cost
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --gc) gc=$2; shift 2 ;;
    --sampler) sampler=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown flag: $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds takes a positive integer" >&2; exit 2; }
[[ "$gc" != *,* && "$gc" != all ]] || { echo "--gc takes one mode: the ratios are per mode" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.log "$out"/*.nettrace "$out"/*.perf.gz

dotnet build src/TailDb.LoadTest -c Release -warnaserror -v q -nologo >/dev/null
loadtest=src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll

variants=(untraced requests store)
echo "start $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
echo "closed loop: --gc $gc --rate max --duration $duration --warmup $warmup ${extra[*]:-}; traced with --sampler $sampler"
for round in $(seq 1 "$rounds"); do
  for k in 0 1 2; do
    variant=${variants[$(( (k + round - 1) % 3 ))]}
    args=(--gc "$gc" --rate max --duration "$duration" --warmup "$warmup" --out "$out/$variant.$round.json" "${extra[@]}")
    [ "$variant" = untraced ] || args+=(--trace "$out/$variant.$round.nettrace" --trace-level "$variant" --sampler "$sampler")
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    dotnet "$loadtest" "${args[@]}" > "$out/$variant.$round.log" 2>&1 || { echo "load test failed: $out/$variant.$round.log" >&2; tail -5 "$out/$variant.$round.log" >&2; exit 1; }
    echo "$load" > "$out/$variant.$round.load"
    echo "round $round: $variant done (load average before: $load)"
  done
done
echo "end $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "$rounds" <<'PY'
import json, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
goals = {"requests": 0.6, "store": 0.45}
def result(variant, r):
    doc = json.load(open(f"{out}/{variant}.{r}.json"))
    return doc["modes"][0]["result"]
def trace_line(variant, r):
    # The harness's "trace MODE: PATH: X MiB, N events, ..." line.
    for line in open(f"{out}/{variant}.{r}.log"):
        m = re.search(r": ([0-9.]+) MiB, ([0-9,]+) events?", line)
        if line.startswith("trace ") and m:
            return float(m.group(1)), int(m.group(2).replace(",", ""))
    return None
print()
print("| round | variant | load average before (1/5/15 min) | req/s | traced/untraced (this round) | trace MiB | events per request |")
print("|---|---|---|---|---|---|---|")
tput, ratios, sizes = {}, {}, {}
for r in range(1, rounds + 1):
    base = result("untraced", r)["throughput"]
    for variant in ("untraced", "requests", "store"):
        res = result(variant, r)
        t = res["throughput"]
        tput.setdefault(variant, []).append(t)
        load = open(f"{out}/{variant}.{r}.load").read().strip()
        ratio, size, per = "", "", ""
        if variant != "untraced":
            ratios.setdefault(variant, []).append(t / base)
            ratio = f"{t / base:.3f}"
            tl = trace_line(variant, r)
            if tl:
                # Every event of the run (fill and warm-up included) over every request it made.
                size, per = f"{tl[0]:.1f}", f"{tl[1] / max(1, res['operations']):.2f} (all phases / measured)"
        print(f"| {r} | {variant} | {load} | {t:,.0f} | {ratio} | {size} | {per} |")
print()
print("| variant | req/s median (min-max) | traced/untraced median (min-max) over rounds | goal |")
print("|---|---|---|---|")
for variant in ("untraced", "requests", "store"):
    v = tput[variant]
    cells = f"{statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})"
    if variant == "untraced":
        print(f"| {variant} | {cells} | | |")
        continue
    q = ratios[variant]
    m = statistics.median(q)
    print(f"| {variant} | {cells} | {m:.3f} ({min(q):.3f}-{max(q):.3f}) | >= {goals[variant]} {'met' if m >= goals[variant] else 'missed'} |")
PY
