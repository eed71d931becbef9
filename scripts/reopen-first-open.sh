#!/usr/bin/env bash
# A 1M-key store's first open in a fresh process (a restart), with hints and by a full scan,
# alternated, each in its own process: time and minor page faults (docs/benchmarks.md, "Reopen on
# huge pages"). To compare another tree, build against its src: --src DIR.
#   bash scripts/reopen-first-open.sh [--runs 5] [--keys 1000000] [--src DIR] [--data DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 keys=1000000 src="$PWD/src" data=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --src) src=$(cd "$2" && pwd); shift 2 ;;
    --data) data=$2; shift 2 ;;
    *) echo "unknown flag: $1" >&2; exit 2 ;;
  esac
done
bin=$(mktemp -d)
dotnet build scripts/reopen-first-open -c Release -p:TailDbSrc="$src" -o "$bin" > "$bin/build.log" 2>&1 || { tail -20 "$bin/build.log"; exit 1; }
[ -n "$data" ] || data="$bin/data"
echo "$(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg), src $src"
dotnet "$bin/ReopenFirstOpen.dll" "$data" "$keys" hints > /dev/null   # writes the store once
for i in $(seq 1 "$runs"); do
  for side in hints scan; do dotnet "$bin/ReopenFirstOpen.dll" "$data" "$keys" $side; done
done | tee "$bin/runs.txt"
for side in hints scan; do
  grep "^$side " "$bin/runs.txt" | awk '{print $2}' | sort -n | awk -v s=$side '{a[NR]=$1} END {print "median " s ": " a[int((NR+1)/2)] " ms"}'
done
echo "$(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$bin"
