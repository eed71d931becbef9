using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Comparison;
using static TailDb.Analyzer.Tests.Comparison.ComparisonBuilderTests;

namespace TailDb.Analyzer.Tests.Comparison;

public sealed class ModeComparisonBuilderTests
{
    [Fact]
    public void EveryModesPercentilesAreMeasuredAgainstTheFirstMode()
    {
        var report = ModeComparisonBuilder.Build(
        [
            new("workstation", "w.nettrace", "workstation.html", Report([Get(p50: 1, p99: 20)], []), null),
            new("server", "s.nettrace", "server.html", Report([Get(p50: 2, p99: 10)], []), null),
            new("nogc", "n.nettrace", "nogc.html", Report([Get(p50: 0.5, p99: 40)], []), null),
        ]);

        Assert.Equal("workstation", report.Baseline);
        Assert.Equal(["workstation", "server", "nogc"], report.Percentiles.Select(r => r.Mode));
        var p99 = report.Statistics.ToList().IndexOf(LatencyStatistic.P99);
        Assert.Equal([1.0, 0.5, 2.0], report.Percentiles.Select(r => r.Ratios[p99]!.Value));
        Assert.Equal([20.0, 10.0, 40.0], report.Percentiles.Select(r => r.ValuesMs[p99]));
        Assert.Equal([true, false, false], report.Percentiles.Select(r => r.Baseline));
    }

    [Fact]
    public void AModeWithoutAnAnalysisKeepsItsColumnAndTheBaselineIsTheFirstThatHasOne()
    {
        var report = ModeComparisonBuilder.Build(
        [
            new("workstation", null, null, null, "the run left no trace"),
            new("server", "s.nettrace", "server.html", Report([Get(p99: 10)], [Cause("gen0 GC pauses", 0.5, 0.01, 50)]), null),
            new("nogc", "n.nettrace", "nogc.html", Report([Get(p99: 5)], []), null),
        ]);

        Assert.Equal("server", report.Baseline);
        Assert.Equal(["workstation", "server", "nogc"], report.Modes.Select(m => m.Label));
        Assert.Equal("the run left no trace", report.Modes[0].Problem);
        Assert.Null(report.Modes[1].Problem);
        Assert.Equal(["server", "nogc"], report.Percentiles.Select(r => r.Mode));
        var p99 = report.Statistics.ToList().IndexOf(LatencyStatistic.P99);
        Assert.Equal(0.5, report.Percentiles[1].Ratios[p99]);
        var gen0 = Assert.Single(report.Causes);
        Assert.Equal(3, gen0.Sides.Count); // one per mode, the unanalyzed one included, so columns line up
        Assert.Null(gen0.Sides[0]);
        Assert.Equal(0.5, gen0.Sides[1]!.SlowShare);
        Assert.Null(gen0.Sides[2]);
    }

    [Fact]
    public void AnActivityTheBaselineLacksHasNoRatio()
    {
        var report = ModeComparisonBuilder.Build(
        [
            new("a", "a.nettrace", "a.html", Report([Get("Get")], []), null),
            new("b", "b.nettrace", "b.html", Report([Get("Get"), Get("Put")], []), null),
        ]);

        var put = Assert.Single(report.Percentiles, r => r.Activity == "Put");
        Assert.All(put.Ratios, Assert.Null);
    }

    [Fact]
    public void CausesComeTimeFirstThenByTheLargestSlowShareAnyModeGivesThem()
    {
        var report = ModeComparisonBuilder.Build(
        [
            new("a", "a.nettrace", "a.html", Report([Get()], [Cause("small", 0.1, 0.1, 1), Cause("events", 3, 1, 3, unit: CauseUnit.Events)]), null),
            new("b", "b.nettrace", "b.html", Report([Get()], [Cause("large in b", 0.6, 0.1, 6), Cause("small", 0.2, 0.1, 2)]), null),
        ]);

        Assert.Equal(["large in b", "small", "events"], report.Causes.Select(c => c.Cause));
    }
}
