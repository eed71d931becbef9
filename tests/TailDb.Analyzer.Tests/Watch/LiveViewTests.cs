using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>What the live view shows: on a terminal a screen of figures, otherwise one line per capture.</summary>
public sealed class LiveViewTests
{
    private static readonly WatchSettings Settings = WatchTargets.Settings("captures", new TriggerSettings(5, null, null), maxCaptures: 3, maxBytes: 8 << 20);

    private static WatchStats Stats() => new()
    {
        Requests = 12_345, RequestsPerSecond = 4_000, RollingCount = 9_000, P50Ms = 0.5, P99Ms = 4.25, P999Ms = 12.5,
        RingBytes = 2 << 20, RingSpanMSec = 3_500, Events = 100_000, EventsLost = 7, GcPauses = 3,
        Triggers = 9, CapturesStarted = 6, Merged = 1, SkippedPending = 0, SkippedCooldown = 2, SkippedMaxCaptures = 0,
    };

    private static List<CaptureResult> Captures(int count) =>
        [.. Enumerable.Range(1, count).Select(i => new CaptureResult(
            new Trigger(TriggerKind.Threshold, "Get", 0, 0, i * 1000, 6 + i, $"{6 + i} ms >= --threshold-ms 5"), $"/c/{i}-Get.nettrace", 1 << 20, $"verdict {i}", true))];

    [Fact]
    public void TheScreenShowsRateRollingPercentilesRingFillLossesWhatWasSkippedAndTheLastFiveCapturesWithVerdicts()
    {
        var output = new StringWriter();
        var view = new LiveView(output, interactive: true, Settings, "process 42");

        view.Render(Stats(), new NetTraceRing(Settings.Ring, new LiveTracker(Settings, new CaptureBudget(), (_, _, _) => { })), Captures(6));

        var screen = output.ToString();
        Assert.Contains("requests/s    4,000", screen, StringComparison.Ordinal);
        Assert.Contains("p50      0.5 ms   p99     4.25 ms   p99.9     12.5 ms", screen, StringComparison.Ordinal);
        Assert.Contains("ring    2.0 / 8 MiB (25%), 3.5 s of 10 s", screen, StringComparison.Ordinal);
        Assert.Contains("lost 7", screen, StringComparison.Ordinal);
        Assert.Contains("9 triggers: 6 captures, 1 folded into a pending capture; skipped 0 during one, 2 in cooldown, 0 over --max-captures 3", screen, StringComparison.Ordinal);
        Assert.DoesNotContain("verdict 1", screen, StringComparison.Ordinal);
        Assert.All(Enumerable.Range(2, 5), i => Assert.Contains($"verdict: verdict {i}", screen, StringComparison.Ordinal));
    }

    [Fact]
    public void OffATerminalEachCaptureIsOneLineAndNoScreenIsDrawn()
    {
        var output = new StringWriter();
        var view = new LiveView(output, interactive: false, Settings, "process 42");

        view.Render(Stats(), new NetTraceRing(Settings.Ring, new LiveTracker(Settings, new CaptureBudget(), (_, _, _) => { })), Captures(2));
        foreach (var capture in Captures(2))
        {
            view.Captured(capture);
        }

        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.StartsWith("capture 1-Get.nettrace (1.0 MiB): Get 7 ms at 1.000 s, 7 ms >= --threshold-ms 5; verdict: verdict 1", lines[0], StringComparison.Ordinal);
    }

    [Fact]
    public void TheEndLineAccountsForEveryTriggerAndCountsOneCaptureInTheSingular()
    {
        var output = new StringWriter();
        var stats = Stats();
        stats.Requests = 600_000;
        stats.Triggers = 2_484;
        stats.CapturesStarted = 1;
        stats.Merged = 145;
        stats.SkippedCooldown = 2_338;
        stats.SkippedPending = 0;

        new LiveView(output, interactive: false, Settings, "process 42").Ended("process 42 exited", stats);

        Assert.StartsWith(
            "watch ended (process 42 exited): 600,000 requests, 2,484 triggers = 1 capture + 145 folded into a capture + 2,338 skipped (pending 0, cooldown 2,338, max-captures 0); events lost 7",
            output.ToString(), StringComparison.Ordinal);
    }
}
