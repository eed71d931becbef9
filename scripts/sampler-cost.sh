#!/usr/bin/env bash
# What each sampler does to the tail it measures (issue: samples that do not stop the runtime).
# The default workload under each GC mode, untraced, traced with EventPipe's sample profiler and
# traced with perf, the three variants alternated round by round (REPEAT rounds, default 3); then
# `slowest` on every trace. Prints, per mode: median (min-max) p99 and p99.9 of each variant, the
# traced/untraced ratios, the measurement overhead share of the slow set's time, the share of the
# slow set's time under named causes, the verdict of the last round, and perf's file size and
# recorder CPU per second beside the .nettrace's size. A second untraced run in every round
# ("untraced again") is the noise floor: its ratio to the first untraced run is what two identical
# runs differ by, so a traced ratio no further from 1 than it is not the recording's doing. Take it
# on a quiet machine: it prints the load average before and after.
#
#   bash scripts/sampler-cost.sh [OUT_DIR]      (MODES=workstation,server,nogc REPEAT=3 DURATION=10 WARMUP=3)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-artifacts/sampler-cost}
modes=${MODES:-workstation,server,nogc}
repeat=${REPEAT:-3}
duration=${DURATION:-10}
warmup=${WARMUP:-3}
mkdir -p "$out"
dotnet build src/TailDb.LoadTest -c Release -v q -nologo >/dev/null
dotnet build src/TailDb.Analyzer -c Release -v q -nologo >/dev/null
loadtest=src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll
analyzer=src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll
echo "start $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$repeat"); do
  for variant in untraced eventpipe perf untraced-again; do
    args=(--gc "$modes" --duration "$duration" --warmup "$warmup" --out "$out/$variant.$round.json")
    [[ "$variant" = untraced* ]] || args+=(--trace "$out/$variant.$round.nettrace" --sampler "$variant")
    echo "round $round: $variant ($(cut -d' ' -f1-3 /proc/loadavg))"
    dotnet "$loadtest" "${args[@]}" > "$out/$variant.$round.log" 2>&1 || { echo "load test failed: $out/$variant.$round.log"; exit 1; }
  done
done
echo "runs done $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for trace in "$out"/*.nettrace; do
  dotnet "$analyzer" slowest "$trace" --format json -o "${trace%.nettrace}.slowest.json" >/dev/null 2>&1 || echo "slowest failed on $trace"
done
python3 - "$out" "$modes" "$repeat" <<'PY'
import json, os, re, statistics, sys
out, modes, repeat = sys.argv[1], sys.argv[2].split(','), int(sys.argv[3])
def ms(ns): return ns / 1e6
def med(values):
    values = [v for v in values if v is not None]
    return (statistics.median(values), min(values), max(values)) if values else None
def cell(t): return "n/a" if t is None else f"{t[0]:.3f} ({t[1]:.3f}-{t[2]:.3f})"
variants = ("untraced", "eventpipe", "perf", "untraced-again")
rows, gcs = {}, {}
for variant in variants:
    for r in range(1, repeat + 1):
        doc = json.load(open(f"{out}/{variant}.{r}.json"))
        for m in doc["modes"]:
            res = m["result"]
            if res is None: continue
            c = res["overall"]["corrected"]
            rows.setdefault((m["mode"], variant), []).append((ms(c["p99"]), ms(c["p999"])))
            g = res["gcDuringMeasurement"]
            gcs.setdefault((m["mode"], variant), []).append((g["pauseMilliseconds"], g["gen0"] + g["gen1"] + g["gen2"], g["gen1"]))
def trace_of(variant, r, mode):
    one = f"{out}/{variant}.{r}.slowest.json"
    many = f"{out}/{variant}.{r}.{mode}.slowest.json"
    return many if os.path.exists(many) else one if len(modes) == 1 else None
print()
print("| mode | variant | p99 ms | p99.9 ms | p99 / untraced | p99.9 / untraced | measurement overhead (slow set) | named causes (slow set) |")
print("|---|---|---|---|---|---|---|---|")
verdicts = {}
for mode in modes:
    base = rows.get((mode, "untraced"), [])
    b99, b999 = med([p for p, _ in base]), med([q for _, q in base])
    for variant in variants:
        runs = rows.get((mode, variant), [])
        p99, p999 = med([p for p, _ in runs]), med([q for _, q in runs])
        overhead, named = [], []
        for r in range(1, repeat + 1):
            path = trace_of(variant, r, mode)
            if variant.startswith("untraced") or path is None or not os.path.exists(path): continue
            rep = json.load(open(path))
            v = rep.get("verdictDetail") or {}
            overhead.append(100 * v.get("measurementOverheadShare", 0))
            slow = [c for c in rep["causes"] if c["unit"] == "ms" and not c.get("measurement")]
            # Causes overlap; the share under a named cause is bounded by the largest time causes together, capped at 100%.
            named.append(min(100, 100 * sum(c["slowShare"] for c in slow if c["kind"] not in ("EarlierRequests",))))
            verdicts[(mode, variant)] = rep["verdict"]
        ratio = lambda a, b: "" if a is None or b is None or b[0] == 0 else f"{a[0] / b[0]:.2f}x"
        print(f"| {mode} | {variant} | {cell(p99)} | {cell(p999)} | {ratio(p99, b99) if variant != 'untraced' else ''} | {ratio(p999, b999) if variant != 'untraced' else ''} | "
              f"{cell(med(overhead)) + '%' if overhead else ''} | {cell(med(named)) + '%' if named else ''} |")
print()
# Whether the recording changed the GC itself: the measured phase's GC pause total and counts (GC.GetTotalPauseDuration, CollectionCount).
print("| mode | variant | GC pause ms in the measured phase | GCs | gen1 GCs |")
print("|---|---|---|---|---|")
for mode in modes:
    for variant in variants:
        runs = gcs.get((mode, variant), [])
        print(f"| {mode} | {variant} | {cell(med([r[0] for r in runs]))} | {cell(med([r[1] for r in runs]))} | {cell(med([r[2] for r in runs]))} |")
print()
for (mode, variant), verdict in sorted(verdicts.items()):
    print(f"{mode}, {variant}: {verdict}")
print()
for variant in ("eventpipe", "perf"):
    sizes, perf_lines = [], []
    for r in range(1, repeat + 1):
        log = open(f"{out}/{variant}.{r}.log").read()
        for m in re.finditer(r"trace (\S+): \S+: ([\d.]+) MiB", log): sizes.append(float(m.group(2)))
        perf_lines += re.findall(r": perf wrote .*", log)
    print(f"{variant}: .nettrace per mode and run {cell(med(sizes))} MiB")
    for line in perf_lines[:len(modes)]: print("  " + line.strip(": "))
PY
echo "end $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
