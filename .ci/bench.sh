#!/usr/bin/env bash
# Benchmark smoke (issue 5): the quick BenchmarkDotNet suite, then its comparison with the committed
# baseline (tests/TailDb.Benchmarks/baseline, quick mode, this machine kind) and the goal ratios.
# Exits non-zero only when the suite cannot run or the comparison finds a regression: more bytes
# allocated per operation, or significantly (Mann-Whitney) slower by 2x or more. Every other
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
case $rc in
  0) echo "bench: no regression" ;;
  2) echo "bench: REGRESSION (see the FAIL rows above)" ;;
  *) echo "bench: the comparison could not run (exit $rc)" ;;
esac
exit $rc
