using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Reports;

namespace TailDb.Analyzer.Tests.Comparison;

public sealed class ComparisonBuilderTests
{
    [Fact]
    public void PercentilesHoldBMinusAAndBOverA()
    {
        var a = Report([Get(p50: 1, p90: 2, p99: 20, p999: 40, max: 50)], []);
        var b = Report([Get(p50: 2, p90: 2, p99: 10, p999: 30, max: 100)], []);
        var rows = ComparisonBuilder.Build(a, b).Percentiles;

        Assert.Equal([LatencyStatistic.P50, LatencyStatistic.P90, LatencyStatistic.P99, LatencyStatistic.P999, LatencyStatistic.Max], rows.Select(r => r.Statistic));
        var p99 = rows.Single(r => r.Statistic == LatencyStatistic.P99);
        Assert.Equal((20.0, 10.0, -10.0, 0.5), (p99.A!.Value, p99.B!.Value, p99.DeltaMs!.Value, p99.Ratio!.Value));
        var max = rows.Single(r => r.Statistic == LatencyStatistic.Max);
        Assert.Equal((50.0, 2.0), (max.DeltaMs!.Value, max.Ratio!.Value));
        Assert.Equal(1.0, rows.Single(r => r.Statistic == LatencyStatistic.P90).Ratio);
    }

    [Fact]
    public void ARatioOverZeroIsLeftOutNotInfinite()
    {
        var rows = ComparisonBuilder.Build(Report([Get(p50: 0)], []), Report([Get(p50: 0.5)], [])).Percentiles;
        var p50 = rows.Single(r => r.Statistic == LatencyStatistic.P50);
        Assert.Null(p50.Ratio);
        Assert.Equal(0.5, p50.DeltaMs);
    }

    [Fact]
    public void AnActivityInOnlyOneTraceHasRowsWithTheOtherSideMissing()
    {
        var rows = ComparisonBuilder.Build(Report([Get()], []), Report([Get(), Get("Put")], [])).Percentiles;
        var put = rows.Where(r => r.Activity == "Put").ToList();
        Assert.Equal(5, put.Count);
        Assert.All(put, r =>
        {
            Assert.Null(r.A);
            Assert.NotNull(r.B);
            Assert.Null(r.DeltaMs);
            Assert.Null(r.Ratio);
        });
        Assert.Equal("Get", rows[0].Activity); // A's activities first
    }

    [Fact]
    public void ACauseInOnlyOneTraceHasAMissingSideAndItsWholeShareAsTheChange()
    {
        var a = Report([Get()], [Cause("gen1 GC pauses", 0.06, 0.19, 0.32)]);
        var b = Report([Get()], [Cause("gen0 GC pauses", 0.35, 0.006, 58.3), Cause("gen1 GC pauses", 0.02, 0.01, 2)]);
        var causes = ComparisonBuilder.Build(a, b).Causes;

        var gen0 = causes[0];
        Assert.Equal("gen0 GC pauses", gen0.Cause);
        Assert.Null(gen0.A);
        Assert.Equal(0.35, gen0.B!.SlowShare);
        Assert.Equal(0.35, gen0.SlowShareChange);
        Assert.Null(gen0.LiftRatio);

        var gen1 = causes[1];
        Assert.Equal((0.06, 0.02), (gen1.A!.SlowShare, gen1.B!.SlowShare));
        Assert.Equal(-0.04, gen1.SlowShareChange);
        Assert.Equal(6.25, gen1.LiftRatio);
    }

    [Fact]
    public void ATailOnlyLiftHasNoLiftRatio()
    {
        var causes = ComparisonBuilder.Build(Report([Get()], [Cause("sleep", 0.5, 0, null)]), Report([Get()], [Cause("sleep", 0.4, 0.1, 4)])).Causes;
        Assert.Null(Assert.Single(causes).LiftRatio);
        Assert.Equal("tail-only", Compared.Lift(causes[0].A));
    }

    [Fact]
    public void TimeCausesComeBeforeEventCausesEachByTheLargerShareOfTheTwo()
    {
        var a = Report([Get()], [Cause("exceptions thrown", 3, 0.1, 30, CauseUnit.Events), Cause("small", 0.1, 0.1, 1), Cause("big in A", 0.5, 0.1, 5)]);
        var b = Report([Get()], [Cause("big in B", 0.6, 0.1, 6), Cause("small", 0.2, 0.1, 2)]);
        Assert.Equal(["big in B", "big in A", "small", "exceptions thrown"], ComparisonBuilder.Build(a, b).Causes.Select(c => c.Cause));
    }

    [Fact]
    public void AMeasurementCauseStaysMarkedAndTheTextMarksIt()
    {
        var sampler = Cause("sample profiler suspensions", 0.05, 0.1, 0.5) with { Measurement = true };
        var report = ComparisonBuilder.Build(Report([Get()], [sampler]), Report([Get()], [sampler with { SlowShare = 0.4, Lift = 4 }]));
        Assert.True(Assert.Single(report.Causes).Measurement);
        using var text = new StringWriter();
        ComparisonTextWriter.Instance.Write(report, text);
        Assert.Contains("  * sample profiler suspensions ", text.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void BothVerdictsAreKeptWithTheirLabels()
    {
        var report = ComparisonBuilder.Build(Report([Get()], [], "verdict one"), Report([Get()], [], "verdict two"), "workstation", "server");
        Assert.Equal(("workstation", "verdict one"), (report.A.Label, report.A.Verdict));
        Assert.Equal(("server", "verdict two"), (report.B.Label, report.B.Verdict));
        Assert.Equal(("compare", ComparisonReport.CurrentSchemaVersion), (report.Report, report.SchemaVersion));
    }

    [Fact]
    public void DifferentLatencyBasesAreNoted()
    {
        var response = Report([Get()], []);
        var service = response with { Population = response.Population with { Basis = LatencyBasis.Service, BasisDescription = "service time" } };
        Assert.Contains(ComparisonBuilder.Build(response, service).Notes, n => n.Contains("latencies differ in kind", StringComparison.Ordinal));
        Assert.Empty(ComparisonBuilder.Build(response, response).Notes);
    }

    internal static ActivityStats Get(string name = "Get", double p50 = 1, double p90 = 2, double p99 = 3, double p999 = 4, double max = 5) =>
        new(name, 1000, p50, p90, p99, p999, max, 0, 0);

    internal static CauseRow Cause(string name, double slow, double rest, double? lift, CauseUnit unit = CauseUnit.Milliseconds) =>
        new(name, "process", unit, slow, rest, lift, slow * 100, rest * 100);

    internal static SlowestReport Report(IReadOnlyList<ActivityStats> activities, IReadOnlyList<CauseRow> causes, string verdict = "a verdict") => new(
        "slowest", SlowestReport.CurrentSchemaVersion,
        new TraceSection("t.nettrace", 1, 1000, 1, 0, null, "ActivityID", 1, 0, "none"),
        new PopulationSection("TailDb", activities, [], 1000, "slowest 1%", 10, 3, LatencyBasis.Response, "response time", "the whole trace"),
        causes, new ProfileSection("", [], "", []), [], verdict, [], []);
}
