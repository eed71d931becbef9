using TailDb.Analyzer.Tests.Stacks;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// The ring and the tracker over a hand-built session stream (SyntheticNetTrace's clock: 1 tick = 1 µs):
/// requests paired, lost events counted where a capture thread's numbers jump, a damaged block
/// dropped while the blocks after it are read, and the same result however the stream is split.
/// </summary>
public sealed class LiveTrackerTests
{
    private const int GetStart = 1;
    private const int GetStop = 2;
    private const int Sample = 3;
    private static readonly Guid A = new("00000001-0000-0000-0000-0000000000f0");
    private static readonly Guid B = new("00000002-0000-0000-0000-0000000000f0");
    private static readonly Guid C = new("00000003-0000-0000-0000-0000000000f0");

    private static byte[] Session()
    {
        using var trace = new SyntheticNetTrace(8, compressedHeaders: true);
        trace.RawBlock("MetadataBlock", EventBlocks.Metadata(
            (GetStart, "TailDb", 1, "GetStart"), (GetStop, "TailDb", 2, "GetStop"), (Sample, "Microsoft-DotNETCore-SampleProfiler", 0, "ThreadSample")));
        // Capture thread 5 numbers its events 1..6; request B takes 2 ms.
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(10_000, [], MetadataId: GetStart, Sequence: (0, 5), ThreadId: 5, StackId: 0, ActivityId: A),
            new RawEvent(100, [], MetadataId: GetStop),
            new RawEvent(100, [], MetadataId: GetStart, ActivityId: B),
            new RawEvent(2_000, [], MetadataId: GetStop),
            new RawEvent(10, [2, 0, 0, 0], MetadataId: Sample, StackId: 9),
            new RawEvent(10, [2, 0, 0, 0], StackId: 4)));
        // Its first event's payload runs past the block.
        var damaged = EventBlocks.Compressed(new RawEvent(50, [1, 2, 3, 4], MetadataId: GetStart, Sequence: (0, 5), ThreadId: 5, StackId: 0));
        trace.RawBlock("EventBlock", damaged[..^2]);
        // Thread 5 jumps from 6 to 13: 6 events lost.
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(20_000, [], MetadataId: GetStart, Sequence: (12, 5), ThreadId: 5, StackId: 0, ActivityId: C),
            new RawEvent(500, [], MetadataId: GetStop)));
        // Past request B's Stop plus the margin.
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(1_000_000, [], MetadataId: Sample, Sequence: (0, 6), ThreadId: 6, StackId: 0)));
        return trace.ToArray();
    }

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(1 << 20)]
    public void RequestsLostEventsAndADamagedBlockAreCountedHoweverTheStreamIsSplit(int chunk)
    {
        var captures = new List<(Trigger Trigger, RingSnapshot Snapshot)>();
        var settings = WatchTargets.Settings("unused", new TriggerSettings(ThresholdMs: 1.5, null, null));
        var tracker = new LiveTracker(settings, new CaptureBudget(), (trigger, snapshot, _) => captures.Add((trigger, snapshot)));
        var ring = new NetTraceRing(settings.Ring, tracker);
        var stream = Session();

        for (var i = 0; i < stream.Length; i += chunk)
        {
            ring.Write(stream.AsSpan(i, Math.Min(chunk, stream.Length - i)));
        }

        Assert.True(ring.EndedWithMarker);
        Assert.Equal((3L, 6L, 1L, 9L), (tracker.Stats.Requests, tracker.Stats.EventsLost, tracker.Stats.CorruptBlocks, tracker.Stats.Events));
        var (trigger, snapshot) = Assert.Single(captures);
        Assert.Equal(("Get", 2.0), (trigger.Activity, trigger.DurationMSec));
        // The damaged block is not in the ring: a capture never holds a block TraceEvent cannot read.
        Assert.Equal(3, snapshot.Blocks.Count);
        Assert.Equal([4, 9], snapshot.Blocks[0].StackIds);
        Assert.Empty(snapshot.Blocks[1].StackIds);
    }

    /// <summary>
    /// Slow requests (2 ms) at chosen event times, each followed by a block past its margin so the
    /// pending capture fires: cooldown and --max-captures are decided in event time, so this pins
    /// them exactly (the endurance test's real workload runs at whatever pace the machine allows).
    /// </summary>
    [Fact]
    public void CooldownAndMaxCapturesSkipTriggersByEventTime()
    {
        using var trace = new SyntheticNetTrace(8, compressedHeaders: true);
        trace.RawBlock("MetadataBlock", EventBlocks.Metadata(
            (GetStart, "TailDb", 1, "GetStart"), (GetStop, "TailDb", 2, "GetStop"), (Sample, "Microsoft-DotNETCore-SampleProfiler", 0, "ThreadSample")));
        // µs: captured; 1 s later, inside the 2 s cooldown; after it, captured; past --max-captures 2.
        long[] slowAt = [10_000, 1_000_000, 2_500_000, 5_000_000];
        for (var i = 0; i < slowAt.Length; i++)
        {
            trace.RawBlock("EventBlock", EventBlocks.Compressed(
                new RawEvent(slowAt[i], [], MetadataId: GetStart, Sequence: (0, 5), ThreadId: 5, StackId: 0, ActivityId: new Guid($"0000001{i}-0000-0000-0000-0000000000f0")),
                new RawEvent(2_000, [], MetadataId: GetStop)));
            trace.RawBlock("EventBlock", EventBlocks.Compressed(
                new RawEvent(slowAt[i] + 400_000, [], MetadataId: Sample, Sequence: (0, 6), ThreadId: 6, StackId: 0)));
        }

        var captures = new List<Trigger>();
        var settings = WatchTargets.Settings("unused", new TriggerSettings(ThresholdMs: 1.5, null, null), maxCaptures: 2, cooldownSeconds: 2);
        var tracker = new LiveTracker(settings, new CaptureBudget(), (trigger, _, _) => captures.Add(trigger));
        var ring = new NetTraceRing(settings.Ring, tracker);
        ring.Write(trace.ToArray());

        Assert.Equal(
            (4L, 2L, 1L, 1L, 0L, 0L),
            (tracker.Stats.Triggers, tracker.Stats.CapturesStarted, tracker.Stats.SkippedCooldown, tracker.Stats.SkippedMaxCaptures, tracker.Stats.Merged, tracker.Stats.SkippedPending));
        Assert.Equal(2, captures.Count);
        Assert.Equal(2_490.0, captures[1].StartMSec - captures[0].StartMSec, 1);
    }

    /// <summary>
    /// Every trigger lands in exactly one place: A is captured, B folds into A's pending capture, L
    /// (started before A, ending 5.5 s later) comes while A is pending but too far from it to fold,
    /// D falls in A's 10 s cooldown, E is captured, F is over --max-captures 2.
    /// </summary>
    [Fact]
    public void CapturedPlusFoldedPlusSkippedByReasonIsEveryTrigger()
    {
        Guid Id(int i) => new($"0000002{i}-0000-0000-0000-0000000000f0");
        using var trace = new SyntheticNetTrace(8, compressedHeaders: true);
        trace.RawBlock("MetadataBlock", EventBlocks.Metadata(
            (GetStart, "TailDb", 1, "GetStart"), (GetStop, "TailDb", 2, "GetStop"), (Sample, "Microsoft-DotNETCore-SampleProfiler", 0, "ThreadSample")));
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(10_000, [], MetadataId: GetStart, Sequence: (0, 5), ThreadId: 5, StackId: 0, ActivityId: Id(0)),
            new RawEvent(1_000, [], MetadataId: GetStart, ActivityId: Id(1)),
            new RawEvent(1_000, [], MetadataId: GetStop, ActivityId: Id(0))));
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(100_000, [], MetadataId: GetStart, Sequence: (0, 5), ThreadId: 5, StackId: 0, ActivityId: Id(2)),
            new RawEvent(2_000, [], MetadataId: GetStop)));
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(5_500_000, [], MetadataId: GetStop, Sequence: (0, 5), ThreadId: 5, StackId: 0, ActivityId: Id(1))));
        foreach (var (at, id) in new[] { (6_000_000L, 3), (11_000_000L, 4), (25_000_000L, 5) })
        {
            trace.RawBlock("EventBlock", EventBlocks.Compressed(
                new RawEvent(at, [], MetadataId: GetStart, Sequence: (0, 5), ThreadId: 5, StackId: 0, ActivityId: Id(id)),
                new RawEvent(2_000, [], MetadataId: GetStop)));
            trace.RawBlock("EventBlock", EventBlocks.Compressed(
                new RawEvent(at + 400_000, [], MetadataId: Sample, Sequence: (0, 6), ThreadId: 6, StackId: 0)));
        }

        var settings = WatchTargets.Settings("unused", new TriggerSettings(ThresholdMs: 1.5, null, null), maxCaptures: 2, cooldownSeconds: 10);
        var tracker = new LiveTracker(settings, new CaptureBudget(), (_, _, _) => { });
        new NetTraceRing(settings.Ring, tracker).Write(trace.ToArray());

        var stats = tracker.Stats;
        Assert.Equal(
            (6L, 2L, 1L, 1L, 1L, 1L),
            (stats.Triggers, stats.CapturesStarted, stats.Merged, stats.SkippedPending, stats.SkippedCooldown, stats.SkippedMaxCaptures));
        Assert.Equal(stats.Triggers, stats.AccountedTriggers);
    }

    /// <summary>
    /// --gc-pause-ms: a GC's suspension (GCSuspendEEBegin for a GC) to its restart (GCRestartEEEnd)
    /// is the pause; a longer one fires a capture, a suspension for another reason does not.
    /// </summary>
    [Fact]
    public void AGcPauseLongerThanTheLimitFiresAGcPauseCaptureAndASuspensionForAnotherReasonDoesNot()
    {
        const int suspend = 4, restart = 5;
        using var trace = new SyntheticNetTrace(8, compressedHeaders: true);
        trace.RawBlock("MetadataBlock", EventBlocks.Metadata(
            (suspend, "Microsoft-Windows-DotNETRuntime", 9, "GC/SuspendEEStart"), (restart, "Microsoft-Windows-DotNETRuntime", 3, "GC/RestartEEStop"),
            (Sample, "Microsoft-DotNETCore-SampleProfiler", 0, "ThreadSample")));
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            // 30 ms suspended for a GC (reason 1), then 50 ms for a debugger (reason 3), then 5 ms for a GC.
            new RawEvent(10_000, [1, 0, 0, 0, 0, 0, 0, 0], MetadataId: suspend, Sequence: (0, 5), ThreadId: 5, StackId: 0),
            new RawEvent(30_000, [0, 0], MetadataId: restart),
            new RawEvent(10_000, [3, 0, 0, 0, 0, 0, 0, 0], MetadataId: suspend),
            new RawEvent(50_000, [0, 0], MetadataId: restart),
            new RawEvent(10_000, [1, 0, 0, 0, 0, 0, 0, 0], MetadataId: suspend),
            new RawEvent(5_000, [0, 0], MetadataId: restart)));
        trace.RawBlock("EventBlock", EventBlocks.Compressed(
            new RawEvent(1_000_000, [], MetadataId: Sample, Sequence: (0, 6), ThreadId: 6, StackId: 0)));

        var captures = new List<Trigger>();
        var settings = WatchTargets.Settings("unused", new TriggerSettings(null, null, GcPauseMs: 20));
        var tracker = new LiveTracker(settings, new CaptureBudget(), (trigger, _, _) => captures.Add(trigger));
        new NetTraceRing(settings.Ring, tracker).Write(trace.ToArray());

        Assert.Equal((2L, 1L), (tracker.Stats.GcPauses, tracker.Stats.Triggers));
        var trigger = Assert.Single(captures);
        Assert.Equal((TriggerKind.GcPause, 30.0), (trigger.Kind, trigger.DurationMSec));
    }
}
