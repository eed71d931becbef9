#!/usr/bin/env bash
# Which methods the JIT still compiles once the server listens: a server started with the given
# flags (e.g. "--warm-up 0", or nothing for the default warm-up), then redis-benchmark SET and GET
# at -P 1 and -P 16, with the runtime's own list of what it compiled (DOTNET_JitStdOutFile +
# DOTNET_JitDisasmSummary: one line per compiled method, with its tier). Prints, for the server's
# hot path (TailDb's connection, parser, dispatcher, commands, store), the methods compiled after
# the "listening" line and their tiers: after a warm-up that did its job, no such method is
# compiled at Tier0 or instrumented, only the odd Tier1 (a method seen at the warm-up's call
# counts but not promoted yet). Needs redis-benchmark (.ci/server-tools.sh). A check, not a figure.
#   bash scripts/server-warm-up-tiers.sh [server flags...]
set -euo pipefail
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not on PATH: run .ci/server-tools.sh" >&2; exit 2; }
dll=src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll
[ -f "$dll" ] || { echo "no $dll: dotnet build src/TailDb.Server -c Release" >&2; exit 2; }
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
port=$(( 20000 + RANDOM % 12000 ))
DOTNET_JitStdOutFile="$work/jit.txt" DOTNET_JitDisasmSummary=1 \
  dotnet "$dll" --dir "$work/data" --port "$port" "$@" > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "listening" "$work/server.log" && break; sleep 0.1; done
grep -q "listening" "$work/server.log" || { cat "$work/server.log" >&2; exit 1; }
at_listen=$(wc -l < "$work/jit.txt")
grep -v "listening" "$work/server.log" || true
for p in 1 16; do
  redis-benchmark -p "$port" -c 50 -d 256 -r 100000 -n $(( p == 1 ? 100000 : 400000 )) -P "$p" -t set,get -q 2>&1 | tr '\r' '\n' | grep "per second" || true
done
redis-cli -p "$port" SHUTDOWN >/dev/null 2>&1 || true
wait "$pid" || true
pid=""
hot='TailDb\.(Server\.(Hosting\.RespConnection|Protocol|Commands)|TailDbStore|Caching|Storage\.(KeyDir|SegmentWriter|KeyHasher|KeyArena))'
echo "JIT: $at_listen methods compiled before listening, $(( $(wc -l < "$work/jit.txt") - at_listen )) after"
echo "hot-path methods compiled after listening, by tier:"
tail -n +"$(( at_listen + 1 ))" "$work/jit.txt" | grep -E "JIT compiled $hot" | sed -E 's/.*\[([^,]*),.*/\1/' | sort | uniq -c || true
echo "of them not at Tier1 (still on first-tier or instrumented code when clients came):"
tail -n +"$(( at_listen + 1 ))" "$work/jit.txt" | grep -E "JIT compiled $hot" | grep -v "\[Tier1" | sed -E 's/^ *[0-9]+: JIT compiled //; s/\(.*\[/ [/; s/, IL size.*//' | head -40 || true
