#!/usr/bin/env bash
# Group commit under redis-benchmark's closed loop: SET -P 16, 50 clients, against the server with
# durability none and fsync, alternated (none, fsync, none, fsync), one fresh server each. Prints
# each run's req/s with the server's CPU time and system calls (perf stat on the server's pid), so
# SETs per fsync and the time between fsyncs follow: docs/server.md, "What an fsync costs a SET".
# Needs root for perf's syscall tracepoints (tracefs is mounted if absent), redis-tools, a build of
# src/TailDb.Server (Release).
#   bash scripts/server-fsync-batches.sh [TailDb.Server.dll] [ROUNDS]
set -u
cd "$(dirname "$0")/.."
dll=${1:-src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll}
rounds=${2:-2}
[ -f "$dll" ] || { echo "server-fsync-batches: no server build at $dll (dotnet build src/TailDb.Server -c Release)" >&2; exit 2; }
command -v perf > /dev/null && command -v redis-benchmark > /dev/null || { echo "server-fsync-batches: needs perf (linux-perf) and redis-benchmark (redis-tools)" >&2; exit 2; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
port=${PORT:-27400}
n=1000000
for round in $(seq "$rounds"); do
  for mode in none fsync; do
    d=$(mktemp -d /tmp/fsync-batches.XXXX)
    # No --gc: the server must be the pid perf attaches to (--gc relaunches a child).
    dotnet "$dll" --dir "$d/store" --port $port --durability $mode > "$d/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do redis-cli -p $port ping > /dev/null 2>&1 && break; sleep 0.2; done
    # Unmeasured first pass: every key exists and the cache holds it, as in the side by side's second SET test.
    redis-benchmark -p $port -c 50 -d 256 -r 100000 -n 300000 -P 16 -t set -q > /dev/null 2>&1
    perf stat -e task-clock,syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync,syscalls:sys_enter_pwrite64 -p $pid -o "$d/stat" &
    sp=$!
    sleep 0.5
    start=$(date +%s.%N)
    rps=$(redis-benchmark -p $port -c 50 -d 256 -r 100000 -n $n -P 16 -t set -q 2>&1 | tr '\r' '\n' | grep "requests per second" | tail -1 | awk '{print $2}')
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    kill -INT $sp; wait $sp 2> /dev/null
    redis-cli -p $port shutdown nosave > /dev/null 2>&1; wait $pid 2> /dev/null
    cpu=$(awk '/task-clock/ {gsub(",", "", $1); print $1}' "$d/stat")
    fsyncs=$(awk '/sys_enter_fsync/ {gsub(",", "", $1); print $1}' "$d/stat")
    fdatasyncs=$(awk '/sys_enter_fdatasync/ {gsub(",", "", $1); print $1}' "$d/stat")
    syncs=$((fsyncs + fdatasyncs))
    if [ "$syncs" -gt 0 ]; then
      per=$(echo "scale=1; $n / $syncs" | bc); gap=$(echo "scale=2; $secs * 1000 / $syncs" | bc)
    else
      per="-"; gap="-"
    fi
    printf '%s round %d %-5s  %9s req/s  server CPU %6.0f ms (%.2f cores)  fsyncs %6d  SETs per fsync %6s  ms between fsyncs %5s  load %s\n' \
      "$(date -u +%T)" "$round" "$mode" "$rps" "$cpu" "$(echo "$cpu / 1000 / $secs" | bc -l)" "$syncs" "$per" "$gap" "$(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$d"
    port=$((port + 1))
  done
done
