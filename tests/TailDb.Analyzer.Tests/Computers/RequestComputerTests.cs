using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Computers;

[Collection(WorkloadTracesGroup.Name)]
public sealed class RequestComputerTests(WorkloadTraces traces)
{
    [Fact]
    public void UserEventSourceActivityIsAnalysedThroughProviderAndActivity()
    {
        var report = SlowestAnalysis.Run(
            new SlowestSettings(traces.Custom, new RequestSelection("TailDb-Tests-Orders", ["Checkout"]), Percent: 1), stackReader: null);
        var activity = Assert.Single(report.Population.Activities);
        Assert.Equal("Checkout", activity.Name);
        Assert.Equal(200, activity.Count);
        Assert.Equal([60, 120], report.Slowest.Select(r => (int)r.Fields["orderId"]).Order());
        var gcRequest = Assert.Single(report.Slowest, r => r.Fields["orderId"] == 60);
        Assert.Equal("gen2 GC pauses", gcRequest.Causes[0].Cause);
        Assert.DoesNotContain(report.Slowest.Single(r => r.Fields["orderId"] == 120).Causes, c => c.Cause.Contains("GC", StringComparison.Ordinal));
    }

    [Fact]
    public void ActivityNamesMatchWithOrWithoutTheStartSuffix()
    {
        var report = SlowestAnalysis.Run(
            new SlowestSettings(traces.Custom, new RequestSelection("tailDB-tests-orders", ["CheckoutStart"]), Percent: 1), stackReader: null);
        Assert.Equal(200, report.Population.Requests);
    }

    [Fact]
    public void WithoutActivityIdsRequestsArePairedByThreadAndTheReportSaysSo()
    {
        var set = ComputerSet.Run(traces.NoActivityIds, RequestSelection.TailDb);
        Assert.Equal(PairingMode.Thread, set.Requests.Pairing);
        var report = SlowestAnalysis.Run(new SlowestSettings(traces.NoActivityIds, RequestSelection.TailDb, Percent: 1), stackReader: null);
        Assert.StartsWith("thread", report.Trace.Pairing, StringComparison.Ordinal);
        Assert.Contains("0x80", report.Trace.Pairing, StringComparison.Ordinal);
        Assert.Equal(200, report.Population.Requests);
        Assert.Equal(2, report.Population.SlowCount);
        // The nested FileRead still finds its request: the one open on its thread.
        var nested = Assert.Single(report.Population.Nested);
        Assert.Equal(1, nested.WithParent);
        Assert.Contains(report.Slowest, r => r.Causes.Any(c => c.Cause == "FileRead (nested activity)" && c.Value >= 35));
    }

    [Fact]
    public void UnknownProviderEndsInAOneLineNoRequestsError()
    {
        var e = Assert.Throws<AnalyzerException>(() => SlowestAnalysis.Run(
            new SlowestSettings(traces.Custom, new RequestSelection("Nobody-Here", ["Request"])), stackReader: null));
        Assert.Equal(ExitCode.NoRequests, e.ExitCode);
        Assert.DoesNotContain('\n', e.Message);
    }
}
