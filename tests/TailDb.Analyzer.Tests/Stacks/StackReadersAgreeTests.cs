using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.EventPipe;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.TraceGen.Workloads;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>The streaming reader against TraceEvent's TraceLog (the oracle) on the same trace.</summary>
[Collection(RecordedTracesGroup.Name)]
public sealed class StackReadersAgreeTests(RecordedTraces traces)
{
    [Fact]
    public void BothReadersGiveTheSameSamplesInTheSameOrder()
    {
        var (oracle, fast) = ReadBoth();

        // A loaded CI box starves the sampler thread; a hundred samples still exercise many regions.
        Assert.True(oracle.Samples.Count > 100, $"only {oracle.Samples.Count} samples in a 1.2 s two-thread burn");
        Assert.Equal(
            oracle.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, s.Managed)).Order(),
            fast.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, s.Managed)).Order());
        Assert.Equal(fast.Samples.Select(s => s.TimeRelativeMSec).Order(), fast.Samples.Select(s => s.TimeRelativeMSec));
    }

    [Fact]
    public void BothReadersNameTheSameFramesForEverySample()
    {
        var (oracle, fast) = ReadBoth();

        Assert.Equal(Stacks(oracle), Stacks(fast));
        Assert.Equal(oracle.UnresolvedFrames, fast.UnresolvedFrames);
    }

    // Usually spans several sequence points (stack ids restart after each), but how many depends
    // on how fast the box lets the child write; SyntheticTraceStacksTests pins the restart down.
    [Fact]
    public void BothReadersAgreeOnARequestStormTrace()
    {
        var oracle = new TraceLogStackSampleReader().Read(traces.Storm);
        var fast = new NetTraceStackSampleReader().Read(traces.Storm);

        Assert.NotEmpty(fast.Samples);
        Assert.Equal(Stacks(oracle), Stacks(fast));
    }

    [Fact]
    public void KnownBurnMethodIsTheLeafOfMostSamplesOnTheBurnThreads()
    {
        var set = new NetTraceStackSampleReader().Read(traces.Complete);

        var inKnownFrame = set.Samples.Where(s => set.Stacks[s.StackId] is [CpuBurner.KnownFrame, ..]).ToList();
        var burnThreads = inKnownFrame.Select(s => s.ThreadId).Distinct().ToList();
        Assert.Equal(2, burnThreads.Count);
        var onBurnThreads = set.Samples.Count(s => burnThreads.Contains(s.ThreadId));
        Assert.True(inKnownFrame.Count > onBurnThreads / 2, $"{inKnownFrame.Count} of {onBurnThreads} burn-thread samples in the known frame");
    }

    [Fact]
    public void SampleTimesAndThreadsAreThoseEventPipeEventSourceReports()
    {
        var expected = new List<(double, int)>();
        using (var source = new EventPipeEventSource(traces.Complete))
        {
            new SampleProfilerTraceEventParser(source).ThreadSample += e => expected.Add((e.TimeStampRelativeMSec, e.ThreadID));
            source.Process();
        }

        var fast = new NetTraceStackSampleReader().Read(traces.Complete);

        Assert.NotEmpty(expected);
        Assert.Equal(expected.Order(), fast.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId)).Order());
    }

    private (StackSampleSet Oracle, StackSampleSet Fast) ReadBoth() =>
        (new TraceLogStackSampleReader().Read(traces.Complete), new NetTraceStackSampleReader().Read(traces.Complete));

    // Per sample, in a reader-independent order: (time, thread, frames joined).
    private static List<(double, int, string)> Stacks(StackSampleSet set) =>
        [.. set.Samples.Select(s => (s.TimeRelativeMSec, s.ThreadId, string.Join(" <- ", set.Stacks[s.StackId]))).Order()];
}
