#!/usr/bin/env bash
# Load test smoke: every GC mode back to back for a few seconds each, one trace per mode, and the
# --report pages (each mode's slowest page and report/index.html comparing them, linking each).
# Usage: .ci/loadtest.sh [trace-dir]   (default artifacts/smoke/; the analyzer's smoke reads the traces there)
# Prints the mode table and each trace's size/events lost; exits non-zero if any mode fails
# (worker crash, GC not what the runtimeconfig asked for, a GC inside the nogc region, unreadable trace).
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-artifacts/smoke}"
mkdir -p "$out"

dotnet build src/TailDb.LoadTest -c Release --nologo -v quiet -warnaserror >/dev/null
dll=src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll

start=$(date +%s)
dotnet "$dll" --gc all --duration 3 --warmup 1 --keys 20000 --rate 2000 \
  --trace "$out/loadtest.nettrace" --out "$out/loadtest.json" --report "$out/report"

for mode in workstation workstation-nonconcurrent server server-nodatas nogc; do
  trace="$out/loadtest.$mode.nettrace"
  if [[ ! -s "$trace" ]]; then
    echo "loadtest smoke: missing or empty trace $trace" >&2
    exit 1
  fi
  if [[ ! -s "$out/report/$mode.html" ]] || ! grep -q "<a href=\"$mode.html\">" "$out/report/index.html" 2>/dev/null; then
    echo "loadtest smoke: --report wrote no page for $mode, or report/index.html does not link it" >&2
    exit 1
  fi
done
# --inject: one short traced run with a forced GC a second; its truth file lands beside the trace.
dotnet "$dll" --gc workstation --duration 2 --warmup 1 --keys 20000 --rate 2000 --sampler off \
  --trace "$out/injected.nettrace" --inject gc:every=1s >/dev/null
truth="$out/injected.truth.json"
if ! grep -q '"arrival"' "$truth" 2>/dev/null; then
  echo "loadtest smoke: --inject wrote no affected requests to $truth" >&2
  exit 1
fi

# The load test as a RESP client: the harness starts the TailDb server under workstation GC on a
# free loopback port, drives it over 4 pooled connections, and stops it with SHUTDOWN.
dotnet "$dll" --target taildb-server --gc workstation --duration 2 --warmup 0.5 --keys 5000 --rate 2000 \
  --out "$out/loadtest-server.json" > "$out/loadtest-server.txt"
grep -A 2 "^mode " "$out/loadtest-server.txt" | tail -n 1
if ! grep -q '"target": "taildb-server"' "$out/loadtest-server.json"; then
  echo "loadtest smoke: --target taildb-server wrote no networked row to $out/loadtest-server.json" >&2
  exit 1
fi

echo "loadtest smoke: OK in $(( $(date +%s) - start )) s; traces and loadtest.json in $out"
