using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Attribution;

/// <summary>
/// The workload forced a GC, a sleep, a contended lock and a slow nested FileRead inside known
/// requests; everything else was a short spin. The analyzer must find exactly those requests
/// and name each one's cause.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class SlowestAnalysisGroundTruthTests(WorkloadTraces traces)
{
    private static readonly double s_percent = 100.0 * WorkloadTraces.ForcedCount / WorkloadTraces.GroundTruthRequests;

    private SlowestReport Report() => SlowestAnalysis.Run(
        new SlowestSettings(traces.GroundTruth, RequestSelection.TailDb, s_percent, Top: 100), new NetTraceStackSampleReader());

    [Fact]
    public void SlowSetIsExactlyTheForcedRequests()
    {
        var report = Report();
        var slow = report.Slowest.Select(r => WorkloadKeys.IndexOf(r.Fields)).Order().ToArray();
        int[] forced = [.. WorkloadTraces.ForcedGc, .. WorkloadTraces.ForcedSleep, .. WorkloadTraces.ForcedLock, .. WorkloadTraces.ForcedFileRead];
        Assert.Equal(forced.Order().ToArray(), slow);
        Assert.Equal(WorkloadTraces.ForcedCount, report.Population.SlowCount);
        Assert.Equal(WorkloadTraces.GroundTruthRequests, report.Population.Requests);
        Assert.Equal("ActivityID", report.Trace.Pairing);
    }

    [Fact]
    public void EachForcedRequestIsMostlyCoveredByItsForcedCause()
    {
        foreach (var row in Report().Slowest)
        {
            var index = WorkloadKeys.IndexOf(row.Fields);
            var expected = WorkloadTraces.ForcedGc.Contains(index) ? "gen2 GC pauses"
                : WorkloadTraces.ForcedLock.Contains(index) ? "lock contention (ContentionStart/Stop)"
                : WorkloadTraces.ForcedFileRead.Contains(index) ? "FileRead (nested activity)"
                : "samples: blocked / sleeping";
            var cause = row.Causes.SingleOrDefault(c => c.Cause == expected);
            if (expected.StartsWith("samples", StringComparison.Ordinal))
            {
                // A loaded machine's sampler misses ticks: sampled time is a lower bound, so ask only
                // that sleeping is the largest cause the samples and events show.
                Assert.True(cause is not null && row.Causes.MaxBy(c => c.Value) == cause,
                    $"request {index}: {expected} is not its largest cause; causes: {string.Join(", ", row.Causes)}");
                continue;
            }

            Assert.True(cause is not null && cause.Value >= row.DurationMs * 0.5,
                $"request {index}: {expected} covers {cause?.Value ?? 0} of {row.DurationMs} ms; causes: {string.Join(", ", row.Causes)}");
            if (WorkloadTraces.ForcedGc.Contains(index))
            {
                Assert.Equal(expected, row.Causes[0].Cause);
            }
        }
    }

    [Fact]
    public void EveryForcedGcIsFoundAndNoGcIsBlamedOnARequestThatHadNone()
    {
        var set = ComputerSet.Run(traces.GroundTruth, RequestSelection.TailDb);
        var attributor = new Attributor(set, samples: null);
        var gcCauses = attributor.Causes.Select((c, i) => (c, i)).Where(x => x.c.IsGc).Select(x => x.i).ToArray();
        Assert.NotEmpty(gcCauses);
        var values = new double[attributor.Causes.Count];
        var requests = set.Requests.Requests;
        var index = 0;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            Assert.True(request.IsPaired);
            attributor.Measure(request, i, values);
            var gc = gcCauses.Sum(c => values[c]);
            if (WorkloadTraces.ForcedGc.Contains(index))
            {
                Assert.True(gc > request.DurationMSec * 0.5, $"request {index}: forced GC covers only {gc} of {request.DurationMSec} ms");
            }
            else
            {
                Assert.True(gc == 0, $"request {index}: {gc} ms of GC blamed, but it forced none");
            }

            index++;
        }

        Assert.Equal(WorkloadTraces.GroundTruthRequests, index);
    }

    [Fact]
    public void GcIsInvisibleInTheWholeRunProfileButLeadsTheSlowWindows()
    {
        var report = Report();
        Assert.DoesNotContain(report.Profile.WholeRun, f => f.Frame.Contains("GC pauses", StringComparison.Ordinal));
        Assert.Contains(report.Profile.SlowWindows, f => f.Frame == "[gen2 GC pauses]" && f.Share > 0.2);
        Assert.True(report.Trace.SamplingIntervalMs is > 0 and < 20, $"sampling interval {report.Trace.SamplingIntervalMs}");
    }

    [Fact]
    public void CausesAreRankedBySlowShareWithLift()
    {
        var report = Report();
        var time = report.Causes.Where(c => c.Unit == "ms").ToList();
        Assert.Equal(time.OrderByDescending(c => c.SlowShare).Select(c => c.SlowShare), time.Select(c => c.SlowShare));
        var gc = Assert.Single(report.Causes, c => c.Cause == "gen2 GC pauses");
        Assert.Equal(0, gc.RestShare);
        Assert.Null(gc.Lift);
        Assert.Contains("GC", report.Verdict + string.Join(" ", report.Causes.Take(3).Select(c => c.Cause)), StringComparison.Ordinal);
    }

    [Fact]
    public void NestedFileReadsBelongToTheRequestThatIssuedThem()
    {
        var report = Report();
        var nested = Assert.Single(report.Population.Nested);
        Assert.Equal("FileRead", nested.Name);
        Assert.Equal(WorkloadTraces.ForcedFileRead.Length, nested.Count);
        Assert.Equal(nested.Count, nested.WithParent);
        var reading = Assert.Single(report.Slowest, r => WorkloadTraces.ForcedFileRead.Contains(WorkloadKeys.IndexOf(r.Fields)));
        Assert.Contains(reading.Causes, c => c.Cause == "FileRead (nested activity)" && c.Value >= 40);
    }

    [Fact]
    public void PayloadCorrelationSeesTheCacheMissInTheSlowSet()
    {
        var report = Report();
        var hit = Assert.Single(report.Payload, p => p.Field == "hit");
        Assert.Equal("binary", hit.Kind);
        // Misses are at 10, 20 and 250; only 250 is slow: 1 of 5 slow requests missed vs 2 of 395.
        Assert.Equal(0.8, hit.SlowMean, 3);
        Assert.Equal(393.0 / 395, hit.RestMean, 3);
        Assert.DoesNotContain(report.Payload, p => p.Field == "keyHash");
    }
}
