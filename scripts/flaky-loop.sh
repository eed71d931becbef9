#!/usr/bin/env bash
# The flaky-test loop (issue 14): runs the whole suite RUNS times on a fresh clone, under noise like
# CI's, and writes what each run did.
#
#   bash scripts/flaky-loop.sh RUNS OUTDIR [REPO [REF]]
#
# REPO defaults to the repository this script sits in, REF to its HEAD. The clone goes to a temp
# dir and nothing from outside the repository is copied in: the tools the tests use are installed by
# the repository's own .ci/*-tools.sh, as .ci/run does. The solution is built once
# (`dotnet build TailDb.sln -c Release -warnaserror`); each run is the README's
# `dotnet test TailDb.sln -c Release` with --no-build (nothing changes between runs), with CI=true.
#
# Noise: one stress-ng CPU worker at nice 10 for the whole loop (installed with apt-get when absent).
# If it cannot be installed, a `dotnet build --no-incremental` loop of a second clone at nice 10
# runs instead, and the summary says so. Other load on the machine is not ours to stop: the load
# average is sampled every 10 s and reported per run (mean and max), beside each result.
#
# OUTDIR gets: run<N>.log (full test output), results.tsv (one row per run), load.tsv (samples),
# summary.md (the table), noise.txt (what made the noise).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/flaky-loop.sh RUNS OUTDIR [REPO [REF]]" >&2; exit 2; }
runs=$1
out=$(mkdir -p "$2" && cd "$2" && pwd) || { echo "cannot create OUTDIR '$2'" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "RUNS must be a positive integer, got '$runs'" >&2; exit 2; }
repo=${3:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}
commit=$(git -C "$repo" rev-parse --verify "${4:-HEAD}^{commit}") || { echo "no commit '${4:-HEAD}' in '$repo'" >&2; exit 2; }
run_timeout=${FLAKY_RUN_TIMEOUT_SECONDS:-3600}
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 CI=true

work=$(mktemp -d /tmp/taildb-flaky.XXXXXX)
pids=()
cleanup() {
  # Only the processes this script started, by id (each noise loop is its own process group).
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$out/summary.log"; }
load1() { cut -d' ' -f1 /proc/loadavg; }

log "clone $repo at $commit into $work/repo"
git clone -q --no-hardlinks "$repo" "$work/repo" && git -C "$work/repo" checkout -q --detach "$commit" \
  || { log "clone failed"; exit 1; }
cd "$work/repo"

log "tools the tests use (the repository's own .ci scripts)"
for tool in server-tools browser-tools trace-tools; do
  [ -f ".ci/$tool.sh" ] && bash ".ci/$tool.sh" 2>&1 | tee -a "$out/summary.log"
done

log "build: dotnet build TailDb.sln -c Release -warnaserror"
if ! dotnet build TailDb.sln -c Release -warnaserror > "$out/build.log" 2>&1; then
  log "build failed (see build.log)"
  exit 1
fi

# Noise like CI's.
if ! command -v stress-ng >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq stress-ng > "$out/apt.log" 2>&1 \
    || { $SUDO apt-get update -qq >> "$out/apt.log" 2>&1 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq stress-ng >> "$out/apt.log" 2>&1; }
fi
if command -v stress-ng >/dev/null; then
  noise="stress-ng --cpu 1 at nice 10 ($(stress-ng --version 2>/dev/null | head -n 1))"
  setsid nice -n 10 stress-ng --cpu 1 --timeout 0 --quiet > /dev/null 2>&1 &
  pids+=($!)
else
  noise="stress-ng could not be installed (apt.log): a parallel 'dotnet build --no-incremental' loop of a second clone at nice 10 instead"
  git clone -q --no-hardlinks "$repo" "$work/noise" && git -C "$work/noise" checkout -q --detach "$commit"
  setsid bash -c "cd '$work/noise' && while :; do nice -n 10 dotnet build TailDb.sln -c Release --no-incremental > /dev/null 2>&1; done" &
  pids+=($!)
fi
echo "$noise" > "$out/noise.txt"
log "noise: $noise"

# Load samples every 10 s for the whole loop: epoch seconds, 1-minute load average.
setsid bash -c "while :; do echo \"\$(date +%s) \$(cut -d' ' -f1 /proc/loadavg)\" >> '$out/load.tsv'; sleep 10; done" &
pids+=($!)

printf 'run\tstarted_utc\tpassed\tfailed\tskipped\texit\tduration_s\tload_mean\tload_max\tfailures\n' > "$out/results.tsv"
for i in $(seq 1 "$runs"); do
  started=$(date +%s)
  log "run $i of $runs (load $(load1))"
  timeout --kill-after=60 "$run_timeout" dotnet test TailDb.sln -c Release --no-build > "$out/run$i.log" 2>&1
  rc=$?
  ended=$(date +%s)
  passed=$(grep -Eo "Passed: +[0-9]+" "$out/run$i.log" | awk '{s+=$2} END {print s+0}')
  failed=$(grep -Eo "Failed: +[0-9]+" "$out/run$i.log" | awk '{s+=$2} END {print s+0}')
  skipped=$(grep -Eo "Skipped: +[0-9]+" "$out/run$i.log" | awk '{s+=$2} END {print s+0}')
  # "  Failed Namespace.Class.Method(args) [12 ms]": the class and method, without arguments.
  failures=$(grep -E '^\s+Failed [A-Za-z_]' "$out/run$i.log" | sed -E 's/^\s+Failed ([^ (]+).*/\1/' | sed -E 's/^TailDb\.//' | sort -u | paste -sd, -)
  [ "$rc" -eq 124 ] && failures="${failures:+$failures,}(run timed out after ${run_timeout} s)"
  [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && [ -z "$failures" ] && failures="(exit $rc with no failed test: see run$i.log)"
  read -r mean max < <(awk -v a="$started" -v b="$ended" '$1 >= a && $1 <= b { s += $2; n++; if ($2 > m) m = $2 } END { if (n) printf "%.1f %.1f\n", s / n, m; else print "- -" }' "$out/load.tsv")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$(date -u -d "@$started" +%H:%M)" "$passed" "$failed" "$skipped" "$rc" "$((ended - started))" "$mean" "$max" "${failures:--}" >> "$out/results.tsv"
  log "run $i: $passed passed, $failed failed, $skipped skipped, exit $rc, $((ended - started)) s, load mean $mean max $max${failures:+; failed: $failures}"
done

{
  echo "# Flaky loop: $runs runs of dotnet test TailDb.sln -c Release"
  echo
  echo "Commit $commit of $repo. Noise: $noise."
  echo
  echo "| run | started (UTC) | passed / failed / skipped | failures | load mean (max) | duration |"
  echo "|---|---|---|---|---|---|"
  tail -n +2 "$out/results.tsv" | awk -F'\t' '{ printf "| %s | %s | %s / %s / %s | %s | %s (%s) | %dm%02ds |\n", $1, $2, $3, $4, $5, $10, $8, $9, $7 / 60, $7 % 60 }'
  echo
  awk -F'\t' 'NR > 1 { n++; if ($4 > 0 || $6 != 0) bad++ } END { printf "%d of %d runs had a failure.\n", bad + 0, n }' "$out/results.tsv"
} > "$out/summary.md"
cat "$out/summary.md"
