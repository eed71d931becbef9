#!/usr/bin/env bash
# Benchmark smoke (issue 5): the quick BenchmarkDotNet suite, then its comparison with the committed
# baseline (tests/TailDb.Benchmarks/baseline, quick mode, this machine kind) and the goal ratios.
# Exits non-zero only when the suite cannot run or the comparison finds a regression: more bytes
# allocated per operation, or significantly (Mann-Whitney) slower by 2x or more, again in a second
# run of the failing rows' classes. Every other
# change, missing benchmarks and missed goals are printed, not fatal. Usage: .ci/bench.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
out="${1:-artifacts/smoke}/bench"
rm -rf "$out"
mkdir -p "$out"

# Incremental after .ci/run's solution build; builds what is missing when run on its own.
if ! dotnet build tests/TailDb.Benchmarks -c Release -warnaserror > "$out/build.log" 2>&1 ||
   ! dotnet build tests/TailDb.Benchmarks.Compare -c Release -warnaserror >> "$out/build.log" 2>&1; then
  tail -n 30 "$out/build.log"
  echo "bench: build failed"
  exit 1
fi

start=$(date +%s)
dotnet run -c Release --no-build --project tests/TailDb.Benchmarks -- --quick --filter '*' --artifacts "$out" > "$out/suite.log" 2>&1
suite_rc=$?
echo "quick suite: $(( $(date +%s) - start )) s, exit $suite_rc (log: $out/suite.log)"
# BenchmarkDotNet's own tables, one per category, with ratios to each baseline.
grep -aE '^(Categories=|\|)' "$out/suite.log" | grep -av -- '-----' || true
if [ "$suite_rc" -ne 0 ] || ! ls "$out"/results/*-report-full.json > /dev/null 2>&1; then
  grep -aE 'rror|xception' "$out/suite.log" | head -n 30
  echo "bench: the quick suite failed"
  exit 1
fi

compare() { dotnet run -c Release --no-build --project tests/TailDb.Benchmarks.Compare -- "$@"; }

echo
echo "### Goals (quick run: small data, few iterations; docs/benchmarks.md has the full run's)"
compare goals --results "$out/results"

echo
echo "### Comparison with the committed baseline"
compare compare --baseline tests/TailDb.Benchmarks/baseline --current "$out/results" --output "$out/comparison.md"
rc=$?
if [ "$rc" -eq 2 ]; then
  # A quick run on this shared VM moves single rows past 2x now and then (a KeyDir miss 35 -> 87 ns
  # while its raw baseline got faster, 2026-11-27). A regression is the code's only if it shows
  # again: the failing rows' classes run once more, whole (so their raw baselines run beside
  # them), and only a row that fails again fails the smoke. Both comparisons are printed.
  classes=$(grep -F '**FAIL**' "$out/comparison.md" | grep -oE '^\| [A-Za-z0-9_]+\.' | tr -d '| .' | sort -u)
  if [ -n "$classes" ]; then
    filters=()
    for c in $classes; do filters+=("*.$c.*"); done
    echo
    echo "### Confirming: the failing rows' classes ($(echo $classes | tr '\n' ' ')) run again"
    rm -rf "$out/confirm"
    if dotnet run -c Release --no-build --project tests/TailDb.Benchmarks -- --quick --filter "${filters[@]}" --artifacts "$out/confirm" > "$out/confirm.log" 2>&1; then
      compare compare --baseline tests/TailDb.Benchmarks/baseline --current "$out/confirm/results" --output "$out/confirm.md"
      rc=$?
      [ "$rc" -eq 0 ] && echo "bench: the first run's FAIL rows did not fail again (noise, not a regression)"
    else
      echo "bench: the confirming run failed (log: $out/confirm.log)"
    fi
  fi
fi
case $rc in
  0) echo "bench: no regression" ;;
  2) echo "bench: REGRESSION (see the FAIL rows above)" ;;
  *) echo "bench: the comparison could not run (exit $rc)" ;;
esac
exit $rc
