#!/usr/bin/env bash
# Smoke run of the server as a user starts it: the built server on a free loopback port, redis-cli
# PING/SET/GET/INFO, a short redis-benchmark, SHUTDOWN, and the directory lock released. The server
# runs its default warm-up first (a few seconds on 2 busy cores): it prints "listening" only after.
set -euo pipefail
out="${1:-artifacts/smoke}"
mkdir -p "$out"
dll=src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll
command -v redis-cli >/dev/null || { echo "redis-cli absent (see .ci/server-tools.sh): server smoke skipped"; exit 0; }
data=$(mktemp -d)
port=$(( 20000 + RANDOM % 20000 ))
dotnet "$dll" --dir "$data" --port "$port" > "$out/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 300); do grep -q "listening" "$out/server.log" && break; sleep 0.1; done
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
[ "$(cli PING)" = "PONG" ]
[ "$(cli SET smoke hello)" = "OK" ]
[ "$(cli GET smoke)" = "hello" ]
cli INFO | grep -q "^latency_percentiles_usec_get:"
redis-benchmark -h 127.0.0.1 -p "$port" -t ping,set,get -n 20000 -q 2>&1 | tr '\r' '\n' | grep "per second" | tee "$out/server-benchmark.txt"
[ "$(grep -c "per second" "$out/server-benchmark.txt")" -eq 4 ]
cli SHUTDOWN || true
wait $pid
trap 'rm -rf "$data"' EXIT
# The lock is released: a second server opens the same directory.
dotnet "$dll" --dir "$data" --port "$port" > "$out/server2.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "listening" "$out/server2.log" && break; sleep 0.1; done
[ "$(cli GET smoke)" = "hello" ]
kill -TERM $pid
wait $pid
echo "server smoke: PING/SET/GET/INFO, redis-benchmark, SHUTDOWN, reopen after SIGTERM: ok"
