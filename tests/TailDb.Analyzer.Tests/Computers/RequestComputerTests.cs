using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Computers;

[Collection(WorkloadTracesGroup.Name)]
public sealed class RequestComputerTests(WorkloadTraces traces)
{
    [Fact]
    public void UserEventSourceActivityIsAnalysedThroughProviderAndActivity()
    {
        // The slowest 5% (10 requests), not 1%: at load 40 a stalled request (73) displaced the forced
        // 80 ms sleep (120) from a 1% set of two. This recording has no samples, so a stall has no
        // cause to show; both forced requests must be in the set, whatever else the machine added.
        var report = SlowestAnalysis.Run(
            new SlowestSettings(traces.Custom, new RequestSelection("TailDb-Tests-Orders", ["Checkout"]), Percent: 5), stackReader: null);
        var activity = Assert.Single(report.Population.Activities);
        Assert.Equal("Checkout", activity.Name);
        Assert.Equal(200, activity.Count);
        Assert.Subset(report.Slowest.Select(r => (int)r.Fields["orderId"]).ToHashSet(), new HashSet<int> { 60, 120 });
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
        // Slow = at least 70 ms, under the forced 80 ms sleep and file read: a machine at load 40 once
        // stalled two other requests longer than them, which pushed the file read out of a 1% slow set.
        var report = SlowestAnalysis.Run(new SlowestSettings(traces.NoActivityIds, RequestSelection.TailDb, ThresholdMs: 70, Top: 200), stackReader: null);
        Assert.StartsWith("thread", report.Trace.Pairing, StringComparison.Ordinal);
        Assert.Contains("0x80", report.Trace.Pairing, StringComparison.Ordinal);
        Assert.Equal(200, report.Population.Requests);
        Assert.True(report.Population.SlowCount >= 2, $"{report.Population.SlowCount} requests of 70 ms or more");
        // The nested FileRead still finds its request: the one open on its thread.
        var nested = Assert.Single(report.Population.Nested);
        Assert.Equal(1, nested.WithParent);
        Assert.Contains(report.Slowest, r => r.Causes.Any(c => c.Cause == "FileRead (nested activity)" && c.Value >= 75));
    }

    [Fact]
    public void ExceptionsAreCountedOnTheRequestThatThrewThem()
    {
        var set = ComputerSet.Run(traces.NoActivityIds, RequestSelection.TailDb);
        var attributor = new Attributor(set, samples: null);
        var exceptions = attributor.Causes.Select((c, i) => (c, i)).Single(x => x.c.Name == "exceptions thrown").i;
        var info = set.Requests.Activities.Single(a => a.Name == "Get");
        var valueBytes = info.FieldNames.IndexOf("valueBytes");
        var values = new double[attributor.Causes.Count];
        var thrownIn = new Dictionary<int, double>();
        for (var i = 0; i < set.Requests.Requests.Count; i++)
        {
            ref var request = ref set.Requests.Requests[i];
            attributor.Measure(request, i, RequestPart.Service, values);
            Assert.True(info.TryGet(request, valueBytes, out var bytes));
            if (values[exceptions] > 0)
            {
                thrownIn[WorkloadKeys.IndexOfValueBytes(bytes)] = values[exceptions];
            }
        }

        var (index, count) = Assert.Single(thrownIn);
        Assert.Equal(WorkloadTraces.NoIdsThrow[0], index);
        Assert.Equal(20, count);
    }

    [Fact]
    public void PayloadCorrelationSeesTheCacheMissInTheSlowSet()
    {
        // Slow = at least 70 ms: the forced 80 ms sleep (100) and file-read miss (150) always, and any
        // request a loaded machine stalled as long (a 1% set of two lost the miss to two stalls at
        // load 35). Misses at 10, 20 and 150; the shares follow from the slow set the run got.
        var report = SlowestAnalysis.Run(new SlowestSettings(traces.NoActivityIds, RequestSelection.TailDb, ThresholdMs: 70, Top: 200), stackReader: null);
        var slow = report.Slowest.Select(r => WorkloadKeys.IndexOf(r.Fields)).ToList();
        var hit = Assert.Single(report.Payload, p => p.Field == "hit");
        Assert.Equal("binary", hit.Kind);
        Assert.Contains(WorkloadTraces.NoIdsFileRead[0], slow);
        Assert.Contains(WorkloadTraces.NoIdsSleep[0], slow);
        int slowHits = slow.Count(i => !WorkloadTraces.NoIdsMisses.Contains(i));
        Assert.Equal((double)slowHits / slow.Count, hit.SlowMean, 3);
        Assert.Equal((200.0 - WorkloadTraces.NoIdsMisses.Length - slowHits) / (200 - slow.Count), hit.RestMean, 3);
        if (slow.Count == 2)
        {
            // Half the slow set missed against 1.5% of the rest: strong. Stalled hits dilute it.
            Assert.Contains("strong", hit.Finding, StringComparison.Ordinal);
        }
        Assert.DoesNotContain(report.Payload, p => p.Field == "keyHash");
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
