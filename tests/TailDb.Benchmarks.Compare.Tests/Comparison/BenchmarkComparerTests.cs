using TailDb.Benchmarks.Compare.Comparison;
using TailDb.Benchmarks.Compare.Reporting;
using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Tests.Comparison;

public sealed class BenchmarkComparerTests
{
    private static readonly ComparisonOptions Defaults = new();
    private static readonly double[] Times = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109];

    internal static BenchmarkResult Result(string id, IEnumerable<double> times, long? allocated = 0) =>
        new(id, id, times.ToArray(), allocated);

    private static ComparisonRow Compare(double factor, long? before = 0, long? now = 0, ComparisonOptions? options = null) =>
        BenchmarkComparer.CompareOne(Result("B", Times, before), Result("B", Times.Select(t => t * factor), now), options ?? Defaults);

    [Fact]
    public void IdenticalMeasurementsAreTheSameAndPass()
    {
        var row = Compare(1.0);

        Assert.Equal(TimeChange.Same, row.Time);
        Assert.Equal(1.0, row.TimeRatio);
        Assert.Equal(AllocationChange.Same, row.Allocation);
        Assert.False(row.Fails);
    }

    [Fact]
    public void SignificantlySlowerBelowTheFailRatioIsReportedButPasses()
    {
        var row = Compare(1.5);

        Assert.Equal(TimeChange.Slower, row.Time);
        Assert.Equal(1.5, row.TimeRatio!.Value, 9);
        // All ten now above all ten before: exact one-sided p = 1 / C(20, 10).
        Assert.Equal(1.0 / 184756, row.PValue!.Value, 12);
        Assert.False(row.Fails);
    }

    [Fact]
    public void SignificantlySlowerPastTheFailRatioFails()
    {
        var row = Compare(2.0);

        Assert.Equal(TimeChange.Slower, row.Time);
        Assert.True(row.TimeFails);
        Assert.True(row.Fails);
    }

    [Fact]
    public void TwiceTheMedianWithoutSignificanceDoesNotFail()
    {
        // Bimodal noise: the medians differ 2x but the rank sums do not separate the samples.
        double[] before = [10, 10, 10, 10, 10, 40, 40, 40, 40, 40, 40];
        double[] now = [10, 10, 10, 10, 10, 10, 40, 40, 40, 40, 40];
        var row = BenchmarkComparer.CompareOne(Result("B", now), Result("B", before), Defaults);

        Assert.Equal(4.0, row.TimeRatio);
        Assert.Equal(TimeChange.Same, row.Time);
        Assert.False(row.Fails);
    }

    [Fact]
    public void SignificantlyFasterIsReportedAndPasses()
    {
        var row = Compare(0.5);

        Assert.Equal(TimeChange.Faster, row.Time);
        Assert.Equal(0.5, row.TimeRatio!.Value, 9);
        Assert.False(row.Fails);
    }

    [Fact]
    public void TooFewMeasurementsAreUntestedAndNeverFailOnTime()
    {
        var row = BenchmarkComparer.CompareOne(Result("B", [100, 100]), Result("B", [300, 300]), Defaults);

        Assert.Equal(TimeChange.Untested, row.Time);
        Assert.Equal(3.0, row.TimeRatio);
        Assert.False(row.Fails);
    }

    [Fact]
    public void AnyAllocationGrowthFailsEvenWhenTimeIsUnchanged()
    {
        var row = Compare(1.0, before: 0, now: 1);

        Assert.Equal(AllocationChange.More, row.Allocation);
        Assert.True(row.AllocationFails);
        Assert.True(row.Fails);
    }

    [Fact]
    public void AllocationGrowthWithinTheToleranceIsReportedButPasses()
    {
        var row = Compare(1.0, before: 32, now: 40, options: Defaults with { AllocationToleranceBytes = 8 });

        Assert.Equal(AllocationChange.More, row.Allocation);
        Assert.False(row.Fails);
    }

    [Fact]
    public void HugeOperationsMayGrowByTheRelativeToleranceOnly()
    {
        // 283 MB per operation (a trace conversion): 0.1% is 283,000 bytes of runtime noise.
        Assert.False(Compare(1.0, before: 283_000_000, now: 283_000_000 + 283_000).Fails);
        Assert.True(Compare(1.0, before: 283_000_000, now: 283_000_000 + 283_001).Fails);
    }

    [Fact]
    public void SmallOperationsKeepTheAnyByteRuleUnderTheRelativeTolerance()
    {
        // 0.1% of 999 bytes floors to 0: one more byte fails.
        Assert.True(Compare(1.0, before: 999, now: 1000).AllocationFails);
        Assert.True(Compare(1.0, before: 256, now: 257).AllocationFails);
        Assert.False(Compare(1.0, before: 1000, now: 1001).AllocationFails);
    }

    [Fact]
    public void DeclaredAllocationNoiseWidensOnlyThatBenchmarksAllowance()
    {
        var before = Result("PutFsync", Times, 224) with { AllocationNoiseBytes = 16 };

        Assert.False(BenchmarkComparer.CompareOne(before, Result("PutFsync", Times, 240) with { AllocationNoiseBytes = 16 }, Defaults).Fails);
        Assert.True(BenchmarkComparer.CompareOne(before, Result("PutFsync", Times, 241) with { AllocationNoiseBytes = 16 }, Defaults).Fails);
        Assert.True(BenchmarkComparer.CompareOne(Result("PutNone", Times, 224), Result("PutNone", Times, 225), Defaults).Fails);
    }

    [Fact]
    public void FewerAllocatedBytesAreAnImprovement()
    {
        var row = Compare(1.0, before: 40, now: 0);

        Assert.Equal(AllocationChange.Less, row.Allocation);
        Assert.False(row.Fails);
    }

    [Fact]
    public void AllocationsMeasuredOnOneSideOnlyAreUnknownNotFailing()
    {
        var row = Compare(1.0, before: null, now: 100);

        Assert.Equal(AllocationChange.Unknown, row.Allocation);
        Assert.False(row.Fails);
    }

    [Fact]
    public void BenchmarksOnOneSideOnlyAreReportedInSuiteOrderWithoutFailing()
    {
        var baseline = new[] { Result("A", Times), Result("Gone", Times), Result("C", Times) };
        var current = new[] { Result("C", Times), Result("New", Times), Result("A", Times) };

        var rows = BenchmarkComparer.Compare(baseline, current, Defaults);

        Assert.Equal(["A", "Gone", "C", "New"], rows.Select(r => r.Name));
        Assert.Null(rows[1].Current);
        Assert.Null(rows[3].Baseline);
        Assert.Equal(TimeChange.NotCompared, rows[1].Time);
        Assert.DoesNotContain(rows, r => r.Fails);
    }

    private static BenchmarkResult Mapped(string id, string baseline, double factor) =>
        Result(id, Times.Select(t => t * factor)) with { BaselineId = baseline };

    [Fact]
    public void RawBaselineSlowerPastTheFailRatioIsTheMachineAndPasses()
    {
        var rows = BenchmarkComparer.Compare([Mapped("Raw", "Raw", 1)], [Mapped("Raw", "Raw", 3)], Defaults);

        var row = Assert.Single(rows);
        Assert.Equal(TimeChange.Slower, row.Time);
        Assert.True(row.IsRawBaseline);
        Assert.False(row.Fails);
        Assert.Contains("raw baseline", MarkdownTable.Verdict(row, Defaults), StringComparison.Ordinal);
    }

    [Fact]
    public void SlowdownThatItsRawBaselineSharesDoesNotFail()
    {
        // The machine got 2.5x slower for both: TailDb relative to its floor is unchanged.
        var rows = BenchmarkComparer.Compare(
            [Mapped("Raw", "Raw", 1), Mapped("TailDb", "Raw", 1)],
            [Mapped("Raw", "Raw", 2.5), Mapped("TailDb", "Raw", 2.5)],
            Defaults);

        var tailDb = rows[1];
        Assert.Equal(TimeChange.Slower, tailDb.Time);
        Assert.Equal(2.5, tailDb.MachineDrift!.Value, 9);
        Assert.Equal(1.0, tailDb.CorrectedRatio!.Value, 9);
        Assert.False(tailDb.Fails);
        Assert.Contains("1.00x after its raw baseline's 2.50x machine drift", MarkdownTable.Verdict(tailDb, Defaults), StringComparison.Ordinal);
    }

    [Fact]
    public void SlowdownPastTheFailRatioWithASteadyRawBaselineFails()
    {
        var rows = BenchmarkComparer.Compare(
            [Mapped("Raw", "Raw", 1), Mapped("TailDb", "Raw", 1)],
            [Mapped("Raw", "Raw", 1.05), Mapped("TailDb", "Raw", 2.5)],
            Defaults);

        Assert.False(rows[0].Fails);
        Assert.True(rows[1].TimeFails);
        Assert.Equal(2.5 / 1.05, rows[1].CorrectedRatio!.Value, 9);
    }

    [Fact]
    public void A_drift_in_another_parameter_row_of_the_same_raw_baseline_excuses_the_slowdown()
    {
        // The disk's fsync latency moved between the rows: the raw baseline at 8 writers was steady,
        // the one at 1 writer drifted like the store's row (2026-11-23, a CI run of an unchanged benchmark).
        var rows = BenchmarkComparer.Compare(
            [Mapped("P.Raw(Writers: 1)", "P.Raw(Writers: 1)", 1), Mapped("P.Raw(Writers: 8)", "P.Raw(Writers: 8)", 1), Mapped("P.Put(Writers: 8)", "P.Raw(Writers: 8)", 1)],
            [Mapped("P.Raw(Writers: 1)", "P.Raw(Writers: 1)", 2.15), Mapped("P.Raw(Writers: 8)", "P.Raw(Writers: 8)", 0.96), Mapped("P.Put(Writers: 8)", "P.Raw(Writers: 8)", 2.16)],
            Defaults);

        Assert.Equal(2.15, rows[2].MachineDrift!.Value, 9);
        Assert.False(rows[2].Fails);
    }

    [Fact]
    public void A_drift_in_a_raw_baseline_of_another_category_that_the_benchmark_declares_excuses_the_slowdown()
    {
        // 2026-11-27, a new VM with page-table isolation: pwrite 2.44x dearer, the traced category's
        // in-memory baseline (a cache hit) 1.14x, and a Put (one pwrite each) 3.30x.
        BenchmarkResult[] Run(double hit, double append, double put) =>
        [
            Mapped("T.GetHit", "T.GetHit", hit),
            Mapped("P.RawAppend(Writers: 1)", "P.RawAppend(Writers: 1)", append),
            Mapped("T.Put", "T.GetHit", put) with { DriftsWith = ["P.RawAppend"] },
            Mapped("T.PutUndeclared", "T.GetHit", put),
        ];

        var rows = BenchmarkComparer.Compare(Run(1, 1, 1), Run(1.14, 2.44, 3.30), Defaults);

        Assert.Equal(2.44, rows[2].MachineDrift!.Value, 9);
        Assert.False(rows[2].Fails);
        Assert.Equal(1.14, rows[3].MachineDrift!.Value, 9);
        Assert.True(rows[3].TimeFails);
    }

    [Fact]
    public void A_drift_in_another_methods_raw_baseline_excuses_nothing()
    {
        var rows = BenchmarkComparer.Compare(
            [Mapped("P.Other(Writers: 1)", "P.Other(Writers: 1)", 1), Mapped("P.Raw(Writers: 8)", "P.Raw(Writers: 8)", 1), Mapped("P.Put(Writers: 8)", "P.Raw(Writers: 8)", 1)],
            [Mapped("P.Other(Writers: 1)", "P.Other(Writers: 1)", 3), Mapped("P.Raw(Writers: 8)", "P.Raw(Writers: 8)", 1), Mapped("P.Put(Writers: 8)", "P.Raw(Writers: 8)", 2.5)],
            Defaults);

        Assert.Equal(1.0, rows[2].MachineDrift!.Value, 9);
        Assert.True(rows[2].TimeFails);
    }

    [Fact]
    public void RawBaselineStillFailsOnAllocationGrowth()
    {
        var row = BenchmarkComparer.CompareOne(
            Result("Raw", Times, 0) with { BaselineId = "Raw" }, Result("Raw", Times, 8) with { BaselineId = "Raw" }, Defaults);

        Assert.True(row.IsRawBaseline);
        Assert.True(row.Fails);
    }

    [Fact]
    public void ARepeatedFullNameIsComparedOnceUsingItsFirstResult()
    {
        var baseline = new[] { Result("A", Times), Result("A", Times.Select(t => t * 10)) };
        var current = new[] { Result("A", Times) };

        var row = Assert.Single(BenchmarkComparer.Compare(baseline, current, Defaults));
        Assert.Equal(TimeChange.Same, row.Time);
    }
}
