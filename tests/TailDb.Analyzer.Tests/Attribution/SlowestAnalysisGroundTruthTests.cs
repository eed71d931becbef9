using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Attribution;

/// <summary>
/// The workload made real TailDbStore Gets and, inside the Gets at known indices, forced a gen2
/// GC, a sleep or a wait on a contended lock; everything else was quick. The analyzer must find
/// exactly those requests and name each one's cause.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class SlowestAnalysisGroundTruthTests(WorkloadTraces traces)
{
    private const int Gets = WorkloadTraces.GroundTruthRequests + WorkloadTraces.WarmUpGets;

    // The forced requests and the store's first, cold Get (a warm-up: it pays for compiling the read
    // path, so JIT is its forced cause). Just under k/n so that ceil(n * percent / 100) is exactly k.
    private static readonly int SlowCount = WorkloadTraces.ForcedCount + 1;
    private static readonly double s_percent = 100.0 * (SlowCount - 0.5) / Gets;

    private static readonly RequestSelection s_gets = new("TailDb", ["Get"]);

    private SlowestReport Report() => SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, s_gets, s_percent, Top: 100), new NetTraceStackSampleReader());

    [Fact]
    public void SlowSetIsExactlyTheForcedRequestsOrAnIntruderTheReportBlamesOnTheMeasurement()
    {
        var report = Report();
        var slow = report.Slowest.Select(r => WorkloadKeys.IndexOf(r.Fields)).Order().ToArray();
        int[] forced = [-1, .. WorkloadTraces.ForcedGc, .. WorkloadTraces.ForcedSleep, .. WorkloadTraces.ForcedLock];
        // At load averages of 25-36 (a flaky-test loop beside four builds) a quick request was once
        // stalled 19 ms by the sampler's suspension and displaced the cold Get (about as long). Such an
        // intruder is allowed only when the report itself blames it on the measurement, or on the
        // wait for a descheduled thread to reach a safe point that the sampler's tick exposed.
        // At load 37 a Get's own segment read stalled 42 ms on a disk shared with four builds: the
        // report blamed its nested FileRead, a real cause in the trace, so that is allowed too.
        foreach (var row in report.Slowest.Where(r => !forced.Contains(WorkloadKeys.IndexOf(r.Fields))))
        {
            Assert.True(row.Causes.MaxBy(c => c.Value) is { Kind: CauseKind.SamplerSuspension or CauseKind.TracingSamples or CauseKind.SafePointWait } or { Kind: CauseKind.NestedActivity, Cause: "FileRead (nested activity)" },
                $"request {WorkloadKeys.IndexOf(row.Fields)} is slow but not forced, and blamed neither on the measurement nor on its file read: {string.Join(", ", row.Causes)}");
        }

        Assert.Subset(slow.ToHashSet(), forced.Where(i => i >= 0).ToHashSet());
        Assert.Equal(SlowCount, report.Population.SlowCount);
        Assert.Equal(Gets, report.Population.Requests);
        Assert.Equal("ActivityID", report.Trace.Pairing);
    }

    [Fact]
    public void EachForcedRequestIsMostlyCoveredByItsForcedCause()
    {
        int[] forced = [-1, .. WorkloadTraces.ForcedGc, .. WorkloadTraces.ForcedSleep, .. WorkloadTraces.ForcedLock];
        foreach (var row in Report().Slowest.Where(r => forced.Contains(WorkloadKeys.IndexOf(r.Fields))))
        {
            var index = WorkloadKeys.IndexOf(row.Fields);
            var expected = index < 0 ? "JIT compilation"
                : WorkloadTraces.ForcedGc.Contains(index) ? "gen2 GC pauses"
                : WorkloadTraces.ForcedLock.Contains(index) ? "lock contention (ContentionStart/Stop)"
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

            // JIT windows share the cold Get with the freshly compiled code running: a third is plenty.
            Assert.True(cause is not null && cause.Value >= row.DurationMs * (index < 0 ? 0.3 : 0.5),
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
        var set = ComputerSet.Run(traces.GroundTruth, s_gets);
        var attributor = new Attributor(set, samples: null);
        var gcCauses = attributor.Causes.Select((c, i) => (c, i)).Where(x => x.c.IsGc).Select(x => x.i).ToArray();
        Assert.NotEmpty(gcCauses);
        var get = set.Requests.Activities.FindIndex(a => a.Name == "Get");
        var info = set.Requests.Activities[get];
        var valueBytes = info.FieldNames.IndexOf("valueBytes");
        var values = new double[attributor.Causes.Count];
        var requests = set.Requests.Requests;
        var seen = new HashSet<int>();
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (request.Activity != get)
            {
                continue;
            }

            Assert.True(request.IsPaired);
            Assert.True(info.TryGet(request, valueBytes, out var bytes));
            var index = WorkloadKeys.IndexOfValueBytes(bytes);
            if (index < 0)
            {
                continue; // A warm-up Get.
            }

            seen.Add(index);
            attributor.Measure(request, i, RequestPart.Service, values);
            var gc = gcCauses.Sum(c => values[c]);
            if (WorkloadTraces.ForcedGc.Contains(index))
            {
                Assert.True(gc > request.DurationMSec * 0.5, $"request {index}: forced GC covers only {gc} of {request.DurationMSec} ms");
            }
            else
            {
                Assert.True(gc == 0, $"request {index}: {gc} ms of GC blamed, but it forced none");
            }
        }

        Assert.Equal(WorkloadTraces.GroundTruthRequests, seen.Count);
    }

    [Fact]
    public void GcIsInvisibleInTheWholeRunProfileButLeadsTheSlowWindows()
    {
        var report = Report();
        Assert.DoesNotContain(report.Profile.WholeRun, f => f.Frame.Contains("GC pauses", StringComparison.Ordinal));
        Assert.Equal("[gen2 GC pauses]", report.Profile.SlowWindows[0].Frame);
        Assert.True(report.Profile.SlowWindows[0].Share > 0.2);
        Assert.True(report.Trace.SamplingIntervalMs is > 0 and < 20, $"sampling interval {report.Trace.SamplingIntervalMs}");
    }

    [Fact]
    public void VerdictNamesTheGcAndCausesAreRankedBySlowShare()
    {
        var report = Report();
        var time = report.Causes.Where(c => c.Unit == CauseUnit.Milliseconds).ToList();
        Assert.Equal(time.OrderByDescending(c => c.SlowShare).Select(c => c.SlowShare), time.Select(c => c.SlowShare));
        Assert.Equal("gen2 GC pauses", time[0].Cause);
        Assert.Equal(0, time[0].RestShare);
        Assert.Null(time[0].Lift);
        Assert.Matches(@"^\d+% of the slowest [\d.]+%'s time was spent in gen2 GC pauses", report.Verdict);
    }

    [Fact]
    public void BothStackReadersGiveTheSameReport()
    {
        var streaming = Report();
        var traceLog = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, s_gets, s_percent, Top: 100), new TraceLogStackSampleReader());
        Assert.Equal(streaming.Verdict, traceLog.Verdict);
        Assert.Equal(streaming.Causes, traceLog.Causes);
        Assert.Equal(streaming.Profile.WholeRun, traceLog.Profile.WholeRun);
        Assert.Equal(streaming.Profile.SlowWindows, traceLog.Profile.SlowWindows);
        Assert.Equal(streaming.Slowest.SelectMany(r => r.TopFrames), traceLog.Slowest.SelectMany(r => r.TopFrames));
    }

    [Fact]
    public void StoreFileReadsNestInsideTheGetThatIssuedThem()
    {
        var report = Report();
        var fileRead = Assert.Single(report.Population.Nested, n => n.Name == "FileRead");
        Assert.Equal(Gets, fileRead.Count);
        Assert.Equal(Gets, fileRead.WithParent);
        Assert.Contains(report.Causes, c => c.Cause == "FileRead (nested activity)" && c.Scope == "request");
        // Puts are not requests under --activity Get: reported as another activity, never nested in a Get.
        var put = Assert.Single(report.Population.Nested, n => n.Name == "Put");
        Assert.Equal(0, put.WithParent);
    }
}
