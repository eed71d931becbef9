using TailDb.Analyzer.Causes;
using TailDb.LoadTest.Scenarios;

namespace TailDb.LoadTest.Tests.Scenarios;

/// <summary>Runs one story short, in this process as `scenario NAME` does, and keeps what it printed.</summary>
public static class StoryRun
{
    /// <summary>Seconds enough for a few GCs and a slow set of dozens of requests; each story's test stays within about a minute.</summary>
    public static readonly ScenarioSettings Brief = new() { DurationSeconds = 2, WarmupSeconds = 1, Keys = 20_000 };

    /// <summary>
    /// The flagship test's guard: a p99 longer than every GC pause of the measured phase put together
    /// was not made by GC (a load thread waiting for one of 2 cores under another session's load), so
    /// no GC direction can be asserted of that run; nor of one whose slow set no GC pause touched and
    /// whose verdict is the scheduler's. <paramref name="row"/>'s value is its GC share of the slow
    /// set. Says so in the test's output.
    /// </summary>
    public static bool MachineMadeTheTail(StoryRow row, Xunit.Abstractions.ITestOutputHelper output)
    {
        ArgumentNullException.ThrowIfNull(row);
        ArgumentNullException.ThrowIfNull(output);
        double p99 = row.P99Nanoseconds / 1e6;
        if (p99 > row.GcPauseMilliseconds)
        {
            output.WriteLine($"not asserted: {row.Side}'s p99 {p99} ms is longer than all its GC pauses together ({row.GcPauseMilliseconds} ms): the machine made this tail");
            return true;
        }

        // No GC pause touched the slow set at all, and its verdict is the scheduler's (a CI run:
        // 96% "off CPU, asleep, woken by an interrupt": load threads this VM woke late from the
        // pacing wait, whose 500 µs sleeps overslept up to 12 ms on the idle machine).
        if (row.Value == 0 && row.VerdictKind is CauseKind.CpuWait or CauseKind.LateWake or CauseKind.OffCpu)
        {
            output.WriteLine($"not asserted: no GC pause overlapped {row.Side}'s slow set and its verdict is the scheduler's ({row.Verdict}): the machine made this tail");
            return true;
        }

        return false;
    }

    public static async Task<(StoryOutcome Outcome, string Printed)> RunAsync(IScenario story, ScenarioSettings? settings = null)
    {
        settings ??= Brief;
        using var runner = new ScenarioRunner(story, settings, progress: null);
        StoryOutcome outcome = await story.RunAsync(runner, CancellationToken.None);
        using var printed = new StringWriter();
        StoryTable.Write(printed, story, outcome, settings);
        return (outcome, printed.ToString());
    }
}
