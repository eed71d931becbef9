#!/usr/bin/env bash
# Watch smoke: runs docs/watch.md's walkthrough exactly as written there (the shell block between
# its "walkthrough" markers: a server, `watch --pid` on it, the load test against it, `slowest` on
# the capture), then checks what the doc says it shows: a capture, an end line whose triggers add up
# (captured + folded + skipped by reason), and a capture whose frames are named (with perf, the
# default where it can run, through the server's perf map; with EventPipe, by the rundown asked for
# at capture time): under half of the whole run's samples in unresolved frames.
set -uo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
out="${1:-artifacts/smoke}/watch"
mkdir -p "$out"
block="$out/walkthrough.sh"
sed -n '/<!-- walkthrough:begin -->/,/<!-- walkthrough:end -->/p' docs/watch.md | sed '/^<!--/d;/^```/d' > "$block"
[ -s "$block" ] || { echo "watch smoke: no walkthrough block in docs/watch.md"; exit 1; }
rm -rf /tmp/watch-demo
# A process group of its own, so whatever the block leaves running (its server, its watch) ends
# with it: timeout kills the group after 10 minutes, and the kill below whatever outlived the block.
setsid timeout -k 10 600 bash "$block" > "$out/walkthrough.log" 2>&1 &
group=$!
wait "$group"
rc=$?
kill -- -"$group" 2>/dev/null
log="$out/walkthrough.log"
grep -E "^(watching|capture |watch ended|watch process|VERDICT)" -A1 "$log" | grep -v "^--$"

status=0
fail() { echo "watch smoke: $*"; status=1; }
[ "$rc" -eq 0 ] || fail "the walkthrough exited $rc (log: $log)"
grep -q "^capture .*\.nettrace" "$log" || fail "no capture line"
ended=$(grep "^watch ended" "$log")
if [[ "$ended" =~ ([0-9,]+)\ triggers?\ =\ ([0-9,]+)\ captures?\ \+\ ([0-9,]+)\ folded.*\+\ ([0-9,]+)\ skipped\ \(pending\ ([0-9,]+),\ cooldown\ ([0-9,]+),\ max-captures\ ([0-9,]+)\) ]]; then
  n() { echo "${1//,/}"; }
  t=$(n "${BASH_REMATCH[1]}") c=$(n "${BASH_REMATCH[2]}") f=$(n "${BASH_REMATCH[3]}") s=$(n "${BASH_REMATCH[4]}")
  p=$(n "${BASH_REMATCH[5]}") d=$(n "${BASH_REMATCH[6]}") m=$(n "${BASH_REMATCH[7]}")
  [ "$t" -eq $((c + f + s)) ] && [ "$s" -eq $((p + d + m)) ] || fail "triggers do not add up: $ended"
  [ "$c" -ge 1 ] || fail "no capture: $ended"
else
  fail "no end line with the triggers accounted for: ${ended:-none}"
fi
grep -q "^VERDICT" "$log" || fail "slowest printed no verdict on the capture"
# Whole-run profile lines ("  28.5%  5745.6 ms  frame [category]") between "whole run:" and "slow windows:".
unresolved=$(awk '/^  whole run:/ {on=1; next} /^  slow windows:/ {on=0} on && /unresolved!/ {sub("%", "", $1); s += $1} END {printf "%.1f", s + 0}' "$log")
echo "whole-run samples in unresolved frames: ${unresolved}%"
awk -v u="$unresolved" 'BEGIN {exit !(u < 50)}' || fail "${unresolved}% of the whole run's samples unresolved: the capture carries no rundown"
exit $status
