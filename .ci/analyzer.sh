#!/usr/bin/env bash
# Analyzer smoke: runs `slowest` and `summary` on every .nettrace in the directory given as $1
# (the load test smoke's traces) and fails on any non-zero exit (a truncated trace counts as one).
# Without $1 it records the ground-truth workload itself (one forced gen2 GC) and analyzes that.
# Prints, per trace: the verdict, the population lines, and how long each command took. With two
# traces or more, `compare` puts workstation against server (else the first two) as text and as an
# HTML page with both slowest pages beside it ($1/compare/).
set -uo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

analyzer=src/TailDb.Analyzer/bin/Release/net10.0/TailDb.Analyzer.dll
if [ ! -f "$analyzer" ]; then
  dotnet build src/TailDb.Analyzer -c Release -warnaserror 2>&1 | tail -n 2 || exit 1
fi

dir="${1:-}"
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  workload=tests/TailDb.Analyzer.Tests.Workload/bin/Release/net10.0/TailDb.Analyzer.Tests.Workload.dll
  [ -f "$workload" ] || dotnet build tests/TailDb.Analyzer.Tests.Workload -c Release 2>&1 | tail -n 2
  dotnet "$analyzer" record -o "$dir/workload.nettrace" -- dotnet "$workload" --store --requests 400 --gc 100 --hold-ms 40 --heap-objects 3000000 \
    || { echo "analyzer smoke: record failed"; exit 1; }
fi

shopt -s nullglob
traces=("$dir"/*.nettrace)
if [ ${#traces[@]} -eq 0 ]; then
  echo "analyzer smoke: no .nettrace in $dir"
  exit 1
fi

status=0
for trace in "${traces[@]}"; do
  for command in slowest summary; do
    out=$(mktemp)
    start=$(date +%s%N)
    dotnet "$analyzer" "$command" "$trace" > "$out" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "=== analyzer $command $(basename "$trace") ($(stat -c %s "$trace") bytes): exit $rc in ${ms} ms"
    if [ "$command" = slowest ]; then
      grep -A1 '^VERDICT' "$out" | tail -n 1
      grep -E '^  (trace:|sampling interval|provider|requests:|latency:|measurement overhead)' "$out"
    else
      grep -E '^  (Get|Put|Delete|Request) |pauses:|GCs by generation' "$out"
    fi
    if [ $rc -ne 0 ]; then
      echo "analyzer smoke: $command failed on $trace:"
      tail -n 5 "$out"
      status=1
    fi
    rm -f "$out"
  done
done

if [ ${#traces[@]} -ge 2 ]; then
  a="${traces[0]}" b="${traces[1]}"
  for trace in "${traces[@]}"; do
    case "$trace" in *.workstation.nettrace) a="$trace" ;; *.server.nettrace) b="$trace" ;; esac
  done
  mkdir -p "$dir/compare"
  start=$(date +%s%N)
  dotnet "$analyzer" compare "$a" "$b" > "$dir/compare/compare.txt" 2>&1 \
    && dotnet "$analyzer" compare "$a" "$b" --format html -o "$dir/compare/compare.html" --slowest-pages > /dev/null 2>&1
  rc=$?
  echo "=== analyzer compare $(basename "$a") $(basename "$b"): exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms (text, then html with --slowest-pages: $dir/compare/)"
  sed -n '/^VERDICTS/,/^2\. CAUSES/p' "$dir/compare/compare.txt" | grep -v '^2\. CAUSES'
  if [ $rc -ne 0 ]; then
    echo "analyzer smoke: compare failed:"
    tail -n 5 "$dir/compare/compare.txt"
    status=1
  fi
fi

# A real Windows ETW trace (PerfView, machine-wide), read by the managed reader (docs/etl.md): summary
# must name the process it chose; slowest must exit 7 in one line (the trace has no TailDb requests).
# The shared traces sit beside the clone in CI; without them this is skipped with one line.
etl=""
for up in .. ../.. ../../..; do [ -f "$up/shared/etl/net.4.5.2.x64.etl.zip" ] && etl="$up/shared/etl/net.4.5.2.x64.etl.zip" && break; done
if [ -z "$etl" ]; then
  echo "=== analyzer on ETW: skipped (no shared/etl beside the clone)"
else
  start=$(date +%s%N)
  out=$(dotnet "$analyzer" summary "$etl" 2>&1); rc=$?
  echo "=== analyzer summary $(basename "$etl"): exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"
  echo "$out" | grep -E 'pauses:|Analyzed process'
  echo "$out" | grep -q 'Analyzed process' && [ $rc -eq 0 ] || { echo "analyzer smoke: summary on ETW failed"; status=1; }
  err=$(dotnet "$analyzer" slowest "$etl" 2>&1 >/dev/null); rc=$?
  echo "=== analyzer slowest $(basename "$etl"): exit $rc: $(echo "$err" | cut -c1-160)..."
  [ $rc -eq 7 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] || { echo "analyzer smoke: slowest on ETW did not end in one line with exit 7"; status=1; }
fi
exit $status
