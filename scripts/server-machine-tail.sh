#!/usr/bin/env bash
# Whose tail is SET -P 16's? The same redis-benchmark SET -P 16 runs, alternated, against three
# servers started here: TailDb with its store on disk, TailDb with its store in memory (tmpfs,
# /dev/shm: the same code with no block device behind its log), and Garnet 2.2.8 (in-memory, no
# log). Each run prints its p99, p99.8 and max beside what the machine took meanwhile: the
# hypervisor's steal (/proc/stat, all vCPUs) and the kernel's DAMON reclaim threads (kdamond).
#
#   bash scripts/server-machine-tail.sh [--rounds N] [--clients "1 50"] [--n N] [--damon "on off"]
#
# --damon "on off" runs each round once with the kernel's DAMON reclaim (kdamond) as the machine has
# it and once with every kdamond stopped (/sys/kernel/mm/damon/admin), in that order, so the table
# shows what the machine's own reclaim adds to each server's tail. A diagnostic: it needs root, and
# the script puts every kdamond back as it found it when it exits, however it exits.
#
# Needs what scripts/server-side-by-side.sh needs (it installs Garnet the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
clients="1 50"
n=1000000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --damon) damon_states=$2; shift 2 ;;
    *) echo "unknown flag: $1" >&2; exit 2 ;;
  esac
done
damon_states=${damon_states:-as-is}
kdamonds=(/sys/kernel/mm/damon/admin/kdamonds/*/state)
for state in $damon_states; do
  case "$state" in
    as-is) ;;
    on|off) [ -w "${kdamonds[0]}" ] || { echo "--damon needs a writable /sys/kernel/mm/damon/admin/kdamonds/*/state (root, DAMON_SYSFS)" >&2; exit 2; } ;;
    *) echo "--damon takes on and off, not '$state'" >&2; exit 2 ;;
  esac
done
declare -A damon_before=()
if [ "$damon_states" != as-is ]; then for f in "${kdamonds[@]}"; do damon_before[$f]=$(cat "$f"); done; fi
set_damon() { # on|off|as-is
  [ "$1" = as-is ] && return
  local f; for f in "${kdamonds[@]}"; do [ "$(cat "$f")" = "$1" ] || echo "$1" > "$f"; done
}
command -v redis-benchmark > /dev/null || { echo "needs redis-benchmark (apt install redis-tools)" >&2; exit 2; }
dotnet build src/TailDb.Server -c Release -warnaserror -v q > /dev/null
tooldir=$(mktemp -d)
( cd "$tooldir" && dotnet new tool-manifest > /dev/null && dotnet tool install garnet-server --version 2.2.8 > /dev/null )
garnet_dll=$(ls "${NUGET_PACKAGES:-$HOME/.nuget/packages}"/garnet-server/2.2.8/tools/*/any/GarnetServer.dll | head -1)
disk=$(mktemp -d)
mem=$(mktemp -d /dev/shm/taildb-tail.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; wait 2> /dev/null || true; rm -rf "$disk" "$disk.run" "$mem" "$tooldir"
  for f in "${!damon_before[@]}"; do [ "$(cat "$f")" = "${damon_before[$f]}" ] || echo "${damon_before[$f]}" > "$f" || true; done
  true
}
trap cleanup EXIT
declare -A port=([taildb-disk]=7481 [taildb-tmpfs]=7482 [garnet]=7483)
servers=(taildb-disk taildb-tmpfs garnet)
server_dll=src/TailDb.Server/bin/Release/net10.0/TailDb.Server.dll
dotnet "$server_dll" --dir "$disk" --port "${port[taildb-disk]}" --durability none > /dev/null 2>&1 &
pids+=($!)
dotnet "$server_dll" --dir "$mem" --port "${port[taildb-tmpfs]}" --durability none > /dev/null 2>&1 &
pids+=($!)
dotnet "$garnet_dll" --bind 127.0.0.1 --port "${port[garnet]}" > /dev/null 2>&1 &
pids+=($!)
for s in "${servers[@]}"; do
  for _ in $(seq 120); do redis-cli -p "${port[$s]}" PING > /dev/null 2>&1 && break; sleep 0.5; done
done
hz=$(getconf CLK_TCK)
# shellcheck source=scripts/machine-ticks.sh
. scripts/machine-ticks.sh
# One unmeasured run each first: every server past its JIT warm-up and its first segment.
for s in "${servers[@]}"; do redis-benchmark -p "${port[$s]}" -c 50 -d 256 -r 100000 -n "$n" -P 16 -t set -q > /dev/null 2>&1; done
echo "| clients | round | damon | server | req/s | p99 ms | p99.8 ms | max ms | steal ms | kdamond ms | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for c in $clients; do
  for r in $(seq "$rounds"); do
    for damon in $damon_states; do
      set_damon "$damon"
      for s in "${servers[@]}"; do
        read -r steal0 kd0 < <(machine_ticks)
        redis-benchmark -p "${port[$s]}" -c "$c" -d 256 -r 100000 -n "$n" -P 16 -t set 2>&1 | tr '\r' '\n' > "$disk.run"
        read -r steal1 kd1 < <(machine_ticks)
        python3 - "$c" "$r" "$damon" "$s" "$(( (steal1 - steal0) * 1000 / hz ))" "$(( (kd1 - kd0) * 1000 / hz ))" "$(cut -d' ' -f1 /proc/loadavg)" "$disk.run" <<'PY'
import re, sys
c, r, damon, s, steal, kd, load, path = sys.argv[1:]
text = open(path, errors="replace").read()
rps = float(re.search(r"throughput summary: ([0-9.]+) requests per second", text).group(1))
points = [(float(p), float(ms)) for p, ms in re.findall(r"([0-9.]+)% <= ([0-9.]+) milliseconds", text)]
def at(q): return next(ms for p, ms in points if p >= q)
print(f"| {c} | {r} | {damon} | {s} | {rps:,.0f} | {at(99.0):.3f} | {at(99.8):.3f} | {points[-1][1]:.3f} | {steal} | {kd} | {load} |")
PY
      done
    done
  done
done
