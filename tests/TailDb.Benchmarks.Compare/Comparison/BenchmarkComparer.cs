using TailDb.Benchmarks.Compare.Results;
using TailDb.Benchmarks.Compare.Statistics;

namespace TailDb.Benchmarks.Compare.Comparison;

/// <summary>
/// Joins baseline and current results by BenchmarkDotNet's FullName and decides each change.
/// Allocated bytes per operation are deterministic, so any growth past the (tiny) tolerance fails. Times
/// are noisy on a shared machine: a change is reported when a one-sided Mann-Whitney test is
/// significant, and fails only when it is significant AND the median ratio reaches FailRatio AND,
/// when the suite says which raw baseline the benchmark sits beside, the ratio still reaches
/// FailRatio with that baseline's own drift between the runs divided out. Raw baselines themselves
/// never fail on time: they run no TailDb code.
/// </summary>
public static class BenchmarkComparer
{
    public static IReadOnlyList<ComparisonRow> Compare(
        IReadOnlyList<BenchmarkResult> baseline, IReadOnlyList<BenchmarkResult> current, ComparisonOptions options)
    {
        ArgumentNullException.ThrowIfNull(baseline);
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(options);

        var baselineById = FirstById(baseline);
        var currentById = FirstById(current);
        var rows = new List<ComparisonRow>();

        // Baseline order first (the suite's order), then benchmarks new in this run.
        foreach (var before in baseline)
        {
            if (ReferenceEquals(baselineById[before.Id], before))
            {
                rows.Add(currentById.TryGetValue(before.Id, out var now)
                    ? CompareOne(before, now, options, Drift(now, baselineById, currentById))
                    : Missing(before, null));
            }
        }

        foreach (var now in current)
        {
            if (!baselineById.ContainsKey(now.Id) && ReferenceEquals(currentById[now.Id], now))
            {
                rows.Add(Missing(null, now));
            }
        }

        return rows;
    }

    /// <param name="machineDrift">now/before median of the category baseline, or null.</param>
    public static ComparisonRow CompareOne(BenchmarkResult baseline, BenchmarkResult current, ComparisonOptions options, double? machineDrift = null)
    {
        ArgumentNullException.ThrowIfNull(baseline);
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(options);

        var (allocation, allocationFails) = CompareAllocations(
            baseline.AllocatedBytesPerOperation, current.AllocatedBytesPerOperation, current.AllocationNoiseBytes, options);

        var before = baseline.NanosecondsPerOperation;
        var now = current.NanosecondsPerOperation;
        double? ratio = before.Count > 0 && now.Count > 0 ? current.MedianNanoseconds / baseline.MedianNanoseconds : null;
        var isRawBaseline = current.IsBaseline;
        if (isRawBaseline)
        {
            machineDrift = null;
        }

        if (!MannWhitney.CanTest(now, before))
        {
            return new ComparisonRow(current.DisplayName, baseline, current, TimeChange.Untested, ratio, null, allocation, false, allocationFails,
                machineDrift, isRawBaseline);
        }

        var pSlower = MannWhitney.PGreater(now, before);
        var pFaster = MannWhitney.PGreater(before, now);
        TimeChange time;
        double p;
        if (pSlower < options.Alpha)
        {
            time = TimeChange.Slower;
            p = pSlower;
        }
        else if (pFaster < options.Alpha)
        {
            time = TimeChange.Faster;
            p = pFaster;
        }
        else
        {
            time = TimeChange.Same;
            p = Math.Min(pSlower, pFaster);
        }

        var timeFails = time == TimeChange.Slower && !isRawBaseline && ratio >= options.FailRatio &&
            (machineDrift is not { } drift || ratio / drift >= options.FailRatio);
        return new ComparisonRow(current.DisplayName, baseline, current, time, ratio, p, allocation, timeFails, allocationFails,
            machineDrift, isRawBaseline);
    }

    /// <summary>
    /// The machine's drift for <paramref name="current"/>: the largest now/before median ratio among
    /// its raw baseline and that baseline's other parameter rows (the same method), and the raw
    /// baselines it declares it pays for too (<see cref="BenchmarkResult.DriftsWith"/>). The rows run one
    /// after another, and a disk's fsync latency can move between them: once `RawAppendFsync(Writers: 8)`
    /// stayed at 0.96x while `RawAppendFsync(Writers: 1)` drifted 2.15x and `PutFsync(Writers: 8)`
    /// came out 2.16x in the same run, with no code of its own changed.
    /// </summary>
    private static double? Drift(
        BenchmarkResult current, Dictionary<string, BenchmarkResult> baselineById, Dictionary<string, BenchmarkResult> currentById)
    {
        if (current.BaselineId is not { } id || current.IsBaseline)
        {
            return null;
        }

        double? drift = null;
        foreach (var (otherId, now) in currentById)
        {
            if (now.IsBaseline && (SameMethod(otherId, id) || Declares(current, otherId)) && baselineById.TryGetValue(otherId, out var before) &&
                before.NanosecondsPerOperation.Count > 0 && now.NanosecondsPerOperation.Count > 0)
            {
                drift = Math.Max(drift ?? 0, now.MedianNanoseconds / before.MedianNanoseconds);
            }
        }

        return drift;
    }

    private static bool Declares(BenchmarkResult current, string otherId) =>
        current.DriftsWith is { } methods && methods.Any(m => MethodOf(otherId).Equals(m, StringComparison.Ordinal));

    /// <summary>Two FullNames of one method with different parameters ("Type.Method(Writers: 1)").</summary>
    private static bool SameMethod(string a, string b) => MethodOf(a).Equals(MethodOf(b), StringComparison.Ordinal);

    private static ReadOnlySpan<char> MethodOf(string id) => id.IndexOf('(', StringComparison.Ordinal) is var open and >= 0 ? id.AsSpan(0, open) : id;

    /// <param name="declaredNoise">Bytes per operation the benchmark itself declares as timing noise.</param>
    private static (AllocationChange Change, bool Fails) CompareAllocations(long? before, long? now, long declaredNoise, ComparisonOptions options)
    {
        if (before is null || now is null)
        {
            return (AllocationChange.Unknown, false);
        }

        if (now > before)
        {
            return (AllocationChange.More, now - before > Math.Max(declaredNoise, options.AllowedAllocationGrowth(before.Value)));
        }

        return (now < before ? AllocationChange.Less : AllocationChange.Same, false);
    }

    private static ComparisonRow Missing(BenchmarkResult? baseline, BenchmarkResult? current) =>
        new((baseline ?? current)!.DisplayName, baseline, current, TimeChange.NotCompared, null, null, AllocationChange.Unknown, false, false);

    // Several jobs in one run repeat a FullName; the first (the suite's own job) is the one compared.
    private static Dictionary<string, BenchmarkResult> FirstById(IReadOnlyList<BenchmarkResult> results)
    {
        var byId = new Dictionary<string, BenchmarkResult>(StringComparer.Ordinal);
        foreach (var result in results)
        {
            byId.TryAdd(result.Id, result);
        }

        return byId;
    }
}
