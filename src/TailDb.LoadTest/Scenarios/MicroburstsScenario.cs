using System.Globalization;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Findings;
using TailDb.LoadTest.Harness;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 001, "microbursts": a cache server whose per-second traffic looked low while its traffic per
/// millisecond came in bursts that filled the link, and the requests caught in a burst queued. The
/// same mean rate twice: before, each period's requests all fall due in the first 1/<see cref="Factor"/>
/// of it; after, evenly spaced. The queue here is the load threads' own (the store in process), not
/// a network card's: requests due faster than a thread serves them wait behind the ones in front.
/// </summary>
public sealed class MicroburstsScenario : IScenario
{
    /// <summary>A burst's rate over the mean rate.</summary>
    public const double Factor = 50;

    /// <summary>One burst per period: the period's requests all fall due in its first PeriodMilliseconds / Factor.</summary>
    public const double PeriodMilliseconds = 100;

    public string Name => "microbursts";

    public string Seed => "001";

    public string Sides => $"bursts at {Factor:0}x the mean rate for {PeriodMilliseconds / Factor:0.#} ms every {PeriodMilliseconds:0} ms → the same mean rate, smooth";

    public string Shows => "the same requests per second both times, while the bursts' requests queue behind each other: p50 and p99, and the share of the slowest 1%'s time queued behind earlier requests, fall once arrivals are smooth";

    public int Runs(ScenarioSettings settings) => 2;

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        var bursty = await runner.RunSideAsync("bursts", new HarnessOptions { Gc = "workstation", Workload = runner.Workload with { BurstFactor = Factor, BurstPeriodMilliseconds = PeriodMilliseconds } }, cancellationToken)
            .ConfigureAwait(false);
        var smooth = await runner.RunSideAsync("smooth", new HarnessOptions { Gc = "workstation", Workload = runner.Workload }, cancellationToken)
            .ConfigureAwait(false);
        double before = QueuedShare(StoryTable.MedianRun(bursty).Finding), after = QueuedShare(StoryTable.MedianRun(smooth).Finding);
        var rows = new[]
        {
            StoryTable.Row("bursts", bursty, before, Spell(bursty[0], before)),
            StoryTable.Row("smooth", smooth, after, Spell(smooth[0], after)),
        };
        double rate = runner.Workload.Rate ?? 0;
        bool queueFalls = after < before;
        bool p50Falls = rows[1].P50Nanoseconds < rows[0].P50Nanoseconds;
        bool p99Falls = rows[1].P99Nanoseconds < rows[0].P99Nanoseconds;
        string figures = $"both at {Throughput(bursty[0])} and {Throughput(smooth[0])} requests/s; queued behind earlier requests {StoryTable.Percent(before)} → {StoryTable.Percent(after)} of the slow set's time; " +
            $"p50 {StoryTable.Ms(rows[0].P50Nanoseconds)} → {StoryTable.Ms(rows[1].P50Nanoseconds)}, p99 {StoryTable.Ms(rows[0].P99Nanoseconds)} → {StoryTable.Ms(rows[1].P99Nanoseconds)}";
        var missing = new[]
        {
            p50Falls ? null : "the p50 did not fall",
            queueFalls ? null : "the queued share did not fall",
            p99Falls ? null : "the p99 did not fall",
        }.Where(m => m is not null).ToList();
        return new StoryOutcome(Name, "queued (per-s rate)", rows, missing.Count == 0,
            missing.Count == 0 ? figures : $"{figures}: {string.Join("; ", missing)} {StoryTable.NoisyMachine()}")
        {
            Notes =
            [
                $"scheduled per millisecond: bursts {(rate / 1000 * Factor).ToString("0", CultureInfo.InvariantCulture)} requests due in each of a burst's milliseconds and none between; smooth {(rate / 1000).ToString("0", CultureInfo.InvariantCulture)} every millisecond",
                "the verdict names what overlapped the queued requests' windows; the queue itself is the 'earlier requests on the same thread' row of `slowest`",
            ],
        };
    }

    /// <summary>The share of the slow set's time queued behind earlier requests on the same thread.</summary>
    public static double QueuedShare(TraceFinding? finding) =>
        finding?.Causes.Where(c => c.Kind == CauseKind.EarlierRequests && c.InMilliseconds).Sum(c => c.SlowShare) ?? 0;

    private static string Throughput(SideRun run) => run.Result.Throughput.ToString("N0", CultureInfo.InvariantCulture);

    private static string Spell(SideRun run, double share) => $"{StoryTable.Percent(share)} ({Throughput(run)}/s)";
}
