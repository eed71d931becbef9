#!/usr/bin/env bash
# Side by side: the same redis-benchmark invocations against TailDb's server (durability none and
# fsync), Garnet (installed here as a local dotnet tool, garnet-server 2.2.8) and redis-server
# (Debian), each on its own loopback port, every test run against each in turn. Prints throughput and p50/p99/p99.9
# with ratios to Garnet in the same run.
#
#   bash scripts/server-side-by-side.sh [--n-p1 N] [--n-p16 N] [--pipelines "1 16"] [--out DIR] [--taildb-args "..."]
#                                       [--loadtest "LOAD TEST ARGS"] [--baseline-dll PATH] [--baseline-args "..."] [--garnet-aof]
#                                       [--warm-up N]
#
# --warm-up N first sends every server, unmeasured, N SETs and N GETs at -P 1 and 4N of each at
# -P 16, so the table compares servers past their start: a .NET server's first seconds run code
# the JIT has not optimized yet (TailDb's and Garnet's both). Without it (the default) the first
# test of each server (SET -P 1) includes that start.
#
# --garnet-aof adds two more Garnets with its append-only file on disk, the like-for-like peers of
# TailDb's log: "garnet-aof" (--aof: every write appended and its commit issued, the reply not
# waiting for it; as TailDb's none, whose reply waits for the pwrite but not for the disk) and
# "garnet-aof-wait" (--aof --aof-commit-wait: the reply waits for the commit; as TailDb's fsync).
# Ratios stay to the in-memory Garnet.
#
# --baseline-dll adds a fifth server, "taildb-base": another build of TailDb.Server.dll (say, the
# tree before a change: `git archive REV | tar -x -C DIR`, then build DIR/src/TailDb.Server), with
# durability none and the same flags, measured in the same rotation, so a change's before and after
# are both ratios to Garnet in one run. --baseline-args replaces --taildb-args for it (the same
# build with another flag: --baseline-dll src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll
# --baseline-args "--socket-completions threadpool").
#
# --pipelines "" skips redis-benchmark. --loadtest then runs the load test (TailDb.LoadTest) with
# those arguments and --target in-process,taildb-server,redis://<taildb-none>,redis://<garnet>,redis://<redis>
# against the same servers: its open-loop schedule and corrected percentiles, one row per target
# and --gc mode (for a redis:// target --gc is the client's GC; for taildb-server the server's).
#
# Needs: the .NET SDK, apt (redis-tools, redis-server) and NuGet (garnet-server). Nothing is
# installed globally except the two apt packages; Garnet lives in a temp tool manifest.
set -euo pipefail
cd "$(dirname "$0")/.."
n_p1=200000
n_p16=1000000
out=artifacts/side-by-side
taildb_args=""
pipelines="1 16"
loadtest=""
baseline_dll=""
baseline_args=""
warm_up=0
while [ $# -gt 0 ]; do
  case "$1" in
    --n-p1) n_p1=$2; shift 2 ;;
    --n-p16) n_p16=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --pipelines) pipelines=$2; shift 2 ;;
    --loadtest) loadtest=$2; shift 2 ;;
    --taildb-args) taildb_args=$2; shift 2 ;;
    --baseline-dll) baseline_dll=$2; shift 2 ;;
    --baseline-args) baseline_args=$2; baseline_args_set=1; shift 2 ;;
    --garnet-aof) garnet_aof=1; shift ;;
    --warm-up) warm_up=$2; shift 2 ;;
    *) echo "unknown flag: $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
rm -f "$out"/*.txt

need_apt() {
  command -v "$1" >/dev/null && return 0
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "$2" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "$2" >/dev/null; }
}
need_apt redis-benchmark redis-tools
need_apt redis-server redis-server

# Garnet as a local tool in a temp manifest (never in this repo).
tooldir=$(mktemp -d)
( cd "$tooldir" && dotnet new tool-manifest >/dev/null && dotnet tool install garnet-server --version 2.2.8 >/dev/null )
echo "garnet-server 2.2.8 installed in $tooldir"

dotnet build src/TailDb.Server -c Release -warnaserror -v q >/dev/null
server_dll=src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll

pids=()
dirs=()
# "|| true": under set -e a failed kill (a server SHUTDOWN already stopped) would end the trap
# before it reached Garnet, which then outlived the script.
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "${dirs[@]}" "$tooldir"; true; }
trap cleanup EXIT

wait_port() {
  for _ in $(seq 1 300); do
    redis-cli -h 127.0.0.1 -p "$1" PING 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  echo "server on port $1 did not answer PING" >&2
  return 1
}

# All four run at once on their own loopback ports (idle while another is measured), and every
# test is run against each in turn, so a change in the machine's load (it is shared) hits all
# servers alike instead of whichever ran last.
# Below Linux's ephemeral range (32768-60999 by default): a port in it can be held by any
# outgoing connection at the moment a server binds it (it once was, and redis-server aborted).
base=$(( 20000 + RANDOM % 12000 ))
declare -A port=([taildb-none]=$base [taildb-fsync]=$((base + 1)) [garnet]=$((base + 2)) [redis]=$((base + 3)) [taildb-base]=$((base + 4)) [garnet-aof]=$((base + 5)) [garnet-aof-wait]=$((base + 6)))
servers=(taildb-none taildb-fsync garnet redis)
if [ -n "$baseline_dll" ]; then
  servers=(taildb-base "${servers[@]}")
  d=$(mktemp -d); dirs+=("$d")
  [ -n "${baseline_args_set:-}" ] || baseline_args=$taildb_args
  # shellcheck disable=SC2086
  dotnet "$baseline_dll" --dir "$d" --port "${port[taildb-base]}" --durability none $baseline_args > "$out/taildb-base.log" 2>&1 &
  pids+=($!)
fi
for mode in none fsync; do
  d=$(mktemp -d); dirs+=("$d")
  # shellcheck disable=SC2086
  dotnet "$server_dll" --dir "$d" --port "${port[taildb-$mode]}" --durability "$mode" $taildb_args > "$out/taildb-$mode.log" 2>&1 &
  pids+=($!)
done
# Garnet's defaults bind every interface (Address: null): loopback only here. Otherwise its
# defaults: in memory (no tiered storage, no AOF, no checkpoints), server GC (its runtimeconfig).
# Run its dll directly (not through `dotnet tool run`, whose child would outlive a kill of the launcher).
garnet_dll=$(ls "${NUGET_PACKAGES:-$HOME/.nuget/packages}"/garnet-server/2.2.8/tools/*/any/GarnetServer.dll | head -1)
dotnet "$garnet_dll" --bind 127.0.0.1 --port "${port[garnet]}" > "$out/garnet.log" 2>&1 &
pids+=($!)
if [ -n "${garnet_aof:-}" ]; then
  servers+=(garnet-aof garnet-aof-wait)
  for s in garnet-aof garnet-aof-wait; do
    d=$(mktemp -d); dirs+=("$d")
    wait_flag=""; [ "$s" = garnet-aof-wait ] && wait_flag="--aof-commit-wait"
    # shellcheck disable=SC2086
    # The AOF lives under --checkpointdir when tiered storage (--logdir) is off, as it is here.
    # Its default device on Linux is native (io_uring, else libaio), whose shipped library does not
    # load on this Debian 12 (liburing.so.2 absent; the libaio fallback fails too): it aborted at the
    # first flush. RandomAccess is .NET's pwrite/pread, the call TailDb's log makes.
    dotnet "$garnet_dll" --bind 127.0.0.1 --port "${port[$s]}" --aof $wait_flag --device-type RandomAccess --checkpointdir "$d" > "$out/$s.log" 2>&1 &
    pids+=($!)
  done
fi
d=$(mktemp -d); dirs+=("$d")
redis-server --bind 127.0.0.1 --port "${port[redis]}" --save "" --appendonly no --dir "$d" --protected-mode yes > "$out/redis.log" 2>&1 &
pids+=($!)
for s in "${servers[@]}"; do wait_port "${port[$s]}"; done
echo "TailDb: $(grep -h -E "GC mode|listening" "$out"/taildb-*.log | tr '\n' ' ')"
echo "Garnet: $(redis-cli -h 127.0.0.1 -p "${port[garnet]}" INFO server | tr -d '\r' | grep -E '^(garnet_version|redis_version)' | tr '\n' ' ')"
echo "redis-server: $(redis-server --version)"

if [ "$warm_up" -gt 0 ]; then
  for s in "${servers[@]}"; do
    echo "  $s warm-up: $warm_up SET and GET at -P 1, $((4 * warm_up)) at -P 16 (not measured; load: $(cut -d' ' -f1-3 /proc/loadavg))"
    redis-benchmark -h 127.0.0.1 -p "${port[$s]}" -c 50 -d 256 -r 100000 -n "$warm_up" -P 1 -t set,get -q > /dev/null 2>&1
    redis-benchmark -h 127.0.0.1 -p "${port[$s]}" -c 50 -d 256 -r 100000 -n "$((4 * warm_up))" -P 16 -t set,get -q > /dev/null 2>&1
  done
fi
hz=$(getconf CLK_TCK)
# shellcheck source=scripts/machine-ticks.sh
. scripts/machine-ticks.sh
for p in $pipelines; do
  n=$n_p1; [ "$p" = 16 ] && n=$n_p16
  for t in set get; do
    for s in "${servers[@]}"; do
      echo "  $s -P $p $t (n=$n, load: $(cut -d' ' -f1-3 /proc/loadavg))"
      read -r steal0 kd0 < <(machine_ticks)
      redis-benchmark -h 127.0.0.1 -p "${port[$s]}" -c 50 -d 256 -r 100000 -n "$n" -P "$p" -t "$t" 2>&1 | tr '\r' '\n' > "$out/$s.P$p.$t.txt"
      read -r steal1 kd1 < <(machine_ticks)
      echo "$(( (steal1 - steal0) * 1000 / hz )) $(( (kd1 - kd0) * 1000 / hz ))" > "$out/$s.P$p.$t.machine"
    done
  done
done
if [ -n "$loadtest" ]; then
  dotnet build src/TailDb.LoadTest -c Release -warnaserror -v q >/dev/null
  targets="in-process,taildb-server,redis://127.0.0.1:${port[taildb-none]},redis://127.0.0.1:${port[garnet]},redis://127.0.0.1:${port[redis]}"
  echo
  echo "load test: redis://127.0.0.1:${port[taildb-none]} = taildb-none, :${port[garnet]} = garnet, :${port[redis]} = redis (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  # shellcheck disable=SC2086
  echo "  dotnet src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll $loadtest --target $targets"
  # shellcheck disable=SC2086
  dotnet src/TailDb.LoadTest/bin/Release/net10.0/TailDb.LoadTest.dll $loadtest --target "$targets" 2>&1 | tee "$out/loadtest.txt"
  echo "load test done (load: $(cut -d' ' -f1-3 /proc/loadavg))"
fi

# Garnet has no SHUTDOWN: the EXIT trap kills every server started here by its pid.
for s in "${servers[@]}"; do [[ "$s" = garnet* ]] && continue; redis-cli -h 127.0.0.1 -p "${port[$s]}" SHUTDOWN NOSAVE >/dev/null 2>&1 || true; done

[ -z "$pipelines" ] && exit 0
python3 - "$out" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
def parse(path):
    text = path.read_text(errors="replace")
    rps = float(re.search(r"throughput summary: ([0-9.]+) requests per second", text).group(1))
    summary = re.search(r"avg\s+min\s+p50\s+p95\s+p99\s+max\s*\n\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", text)
    p50, p99 = float(summary.group(3)), float(summary.group(5))
    p999 = None
    for pct, ms in re.findall(r"([0-9.]+)% <= ([0-9.]+) milliseconds", text):
        if float(pct) >= 99.9:
            p999 = float(ms); break
    errors = len(re.findall(r"error", text, re.I))
    return rps, p50, p99, p999, errors
servers = ["taildb-base", "taildb-none", "taildb-fsync", "garnet", "garnet-aof", "garnet-aof-wait", "redis"]
print()
def machine(path):
    m = path.with_suffix(".machine")
    return tuple(int(x) for x in m.read_text().split()) if m.exists() else (None, None)
print("| test | server | req/s | p50 ms | p99 ms | p99.9 ms | req/s vs Garnet | p99 vs Garnet | steal ms | kdamond ms |")
print("|---|---|---|---|---|---|---|---|---|---|")
for p in (1, 16):
    for t in ("set", "get"):
        if not (out / f"garnet.P{p}.{t}.txt").exists(): continue
        g = parse(out / f"garnet.P{p}.{t}.txt")
        for s in servers:
            f = out / f"{s}.P{p}.{t}.txt"
            if not f.exists(): continue
            r = parse(f)
            err = f" ({r[4]} error lines)" if r[4] else ""
            steal, kd = machine(f)
            print(f"| {t.upper()} -P {p} | {s} | {r[0]:,.0f} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f} | {r[0]/g[0]:.2f}x | {r[2]/g[2]:.2f}x | {steal} | {kd} |{err}")
print()
print("steal ms: the hypervisor ran something else on this machine's vCPUs during the test (10 ms ticks, all vCPUs);")
print("kdamond ms: the kernel's DAMON reclaim threads ran; a test with either beside a p99 has the machine in its tail.")
PY
