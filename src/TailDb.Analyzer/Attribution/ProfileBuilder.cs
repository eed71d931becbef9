using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Cli;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// The whole run as a sampling profiler sees it (every sample; GC pauses are invisible there) beside
/// the slow windows, where process-wide pauses appear as bracketed pseudo-frames with their time.
/// </summary>
internal static class ProfileBuilder
{
    private const int Rows = 12;

    /// <param name="thresholdUnderIntervalMs">The slow set's threshold when it is shorter than the sampling interval (the verdict's event-based-only case): the slow windows' rows then get a caveat.</param>
    public static ProfileSection Build(ComputerSet set, SampleComputer? samples, Attributor attributor, List<int> slowIndices, double slowTime, double? thresholdUnderIntervalMs)
    {
        var wholeRun = samples is null ? [] : TopFrames.Rank(WholeRunCounts(samples), samples, samples.TotalSamples * samples.IntervalMSec, Rows);
        var slowWindows = SlowWindows(set, samples, attributor, slowIndices, slowTime);
        var wholeBasis = samples is null
            ? "no samples"
            : samples.Set.OnCpuOnly
                ? $"all {Counted.Of(samples.TotalSamples, "on-CPU sample")} of the run, every thread (what a CPU profile shows)"
                : $"all {Counted.Of(samples.TotalSamples, "sample")} of the run, every thread (what a CPU profile shows; no GC inside: none are taken during a GC)";
        var slowBasis = "the slow requests' windows: their own thread's samples, plus process-wide pauses as [bracketed] time";
        if (samples is not null && thresholdUnderIntervalMs is { } thresholdMs)
        {
            // A tick stands for the whole interval, and one tick inside the overlapping windows of
            // many queued requests counts in each: shares past 100% between rows (a server's, at
            // a 0.09 ms threshold and a 1 ms interval). The verdict sets samples aside for the same reason.
            slowBasis += FormattableString.Invariant($"; each sample stands for {samples.IntervalMSec:0.###} ms, longer than the slow threshold ({thresholdMs:0.###} ms), ") +
                "and counts once in every slow window it falls in: where the ticks fell, not shares of the slow set's time";
        }

        return new ProfileSection(wholeBasis, wholeRun, slowBasis, slowWindows);
    }

    private static Dictionary<int, int> WholeRunCounts(SampleComputer samples)
    {
        var counts = new Dictionary<int, int>();
        foreach (var thread in samples.Threads)
        {
            foreach (var stack in thread.StackIds)
            {
                counts[stack] = counts.GetValueOrDefault(stack) + 1;
            }
        }

        return counts;
    }

    private static List<FrameRow> SlowWindows(ComputerSet set, SampleComputer? samples, Attributor attributor, List<int> slowIndices, double slowTime)
    {
        var slowCounts = new Dictionary<int, int>();
        var pseudo = new double[attributor.Causes.Count];
        var values = new double[attributor.Causes.Count];
        var scratch = new double[attributor.Causes.Count];
        foreach (var index in slowIndices)
        {
            ref var request = ref set.Requests.Requests[index];
            attributor.MeasureResponse(request, index, values, scratch);
            for (var c = 0; c < values.Length; c++)
            {
                if (attributor.Causes[c].Scope == CauseScope.Process && attributor.Causes[c].Unit == CauseUnit.Milliseconds)
                {
                    pseudo[c] += values[c];
                }
            }

            if (samples is not null && samples.TryGetThread(request.ThreadId, out var thread))
            {
                TopFrames.Count(thread, request.ArrivalMSec, request.StopMSec, slowCounts);
            }
        }

        var rows = TopFrames.Rank(slowCounts, samples, slowTime, Rows);
        for (var c = 0; c < pseudo.Length; c++)
        {
            if (pseudo[c] > 0)
            {
                var cause = attributor.Causes[c];
                rows.Add(new FrameRow($"[{cause.Name}]", cause.IsGc ? "GC" : "runtime suspension", Population.Round(pseudo[c]),
                    slowTime > 0 ? Math.Round(pseudo[c] / slowTime, 4) : 0));
            }
        }

        rows.Sort((a, b) => b.Ms != a.Ms ? b.Ms.CompareTo(a.Ms) : string.CompareOrdinal(a.Frame, b.Frame));
        return rows.Count > Rows ? rows[..Rows] : rows;
    }
}
