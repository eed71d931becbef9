using System.Globalization;
using TailDb.Analyzer.Findings;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.Tracing;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 000's retries: a client whose timeout was shorter than what it waited for, so each slow
/// request was sent again, and again, with a backoff between, and was slow all the same. A TailDb
/// server this scenario starts (workstation GC) stalls its reads on purpose
/// (<see cref="ServerReadStall"/>: every GET inside a <see cref="StallMilliseconds"/> ms window,
/// opening every <see cref="StallEveryMilliseconds"/> ms, waits until it closes), against a client
/// whose timeout is below the stall, then above it. The client's own trace has each retry as a
/// Retry activity nested in its request: the figure is retries per slow request, with the table of
/// requests by their number of retries, before and after.
/// </summary>
public sealed class RetriesScenario : IScenario
{
    public const double StallEveryMilliseconds = 500;
    public const double StallMilliseconds = 40;

    /// <summary>Below the stall: a read sent into a window times out, and its retries land in the same window.</summary>
    public const int ShortTimeoutMilliseconds = 8;

    /// <summary>Above the stall: a read waits it out once.</summary>
    public const int LongTimeoutMilliseconds = 200;

    /// <summary>
    /// Both sides. Four retries with backoffs of 5, 10, 20 and 40 ms outlast a stall (the short side's
    /// attempts span 8 + 5 + 8 + 10 + 8 + 20 + 8 + 40 + 8 = 115 ms), so a read fails only when the machine holds it longer.
    /// </summary>
    public const int Retries = 4;

    public const string ServerGc = "workstation";

    /// <summary>
    /// 64 slots in short pipelines: a timed-out attempt keeps its slot until its late reply, so when
    /// the stall ends each connection answers at most 4 stale commands before the retries behind them
    /// (with pipelines of 64 the stale backlog outlasted the short timeout again and again, and the
    /// fill's reads ran out of retries).
    /// The fill (every key SET, then read once: setup, not measured) runs with a 1 s timeout: at 8 ms a
    /// loaded machine's answer to the fill's burst outlasted every retry (the fill failed).
    /// </summary>
    private static readonly ClientOptions Pool = new() { Connections = 16, Pipeline = 4, Retries = Retries, FillTimeoutMilliseconds = 1000 };

    public string Name => "retries";

    public string Seed => "000";

    public string Sides => $"a client timeout of {ShortTimeoutMilliseconds} ms with {Retries} retries → {LongTimeoutMilliseconds} ms, against a TailDb server ({ServerGc} GC, started and stopped here) whose GETs stall {StallMilliseconds:0} ms every {StallEveryMilliseconds:0} ms";

    public string Shows => "a timeout below the stall sends each stalled read again into the same stall: the slow requests' time is in their Retry activities (retries per slow request, requests by retries); above the stall they wait it out once, without retries";

    public int Runs(ScenarioSettings settings) => 2;

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        var shortSide = await RunAsync(runner, "short-timeout", ShortTimeoutMilliseconds, cancellationToken).ConfigureAwait(false);
        var longSide = await RunAsync(runner, "timeout-above-stall", LongTimeoutMilliseconds, cancellationToken).ConfigureAwait(false);
        SideRun before = shortSide[0], after = longSide[0];
        NestedCountFinding? beforeRetries = Retry(before), afterRetries = Retry(after);
        double beforePerSlow = beforeRetries?.SlowPerRequest ?? 0, afterPerSlow = afterRetries?.SlowPerRequest ?? 0;
        var rows = new[]
        {
            StoryTable.Row($"timeout {ShortTimeoutMilliseconds} ms", shortSide, beforePerSlow, Spell(beforeRetries)),
            StoryTable.Row($"timeout {LongTimeoutMilliseconds} ms", longSide, afterPerSlow, Spell(afterRetries)),
        };
        bool named = before.ClientFinding?.VerdictCause is { } cause && cause.StartsWith(LoadTestEventContract.Activities.Retry, StringComparison.Ordinal);
        bool fewer = beforePerSlow > 0 && afterPerSlow < beforePerSlow / 2;
        bool noWorse = rows[1].P99Nanoseconds <= rows[0].P99Nanoseconds;
        long beforeCount = Client(before).Counts.Retries, afterCount = Client(after).Counts.Retries;
        string reading = $"{beforePerSlow.ToString("0.0#", CultureInfo.InvariantCulture)} retries per slow request with the {ShortTimeoutMilliseconds} ms timeout " +
            $"({beforeCount:N0} retries in all; {before.ClientFinding?.Verdict ?? "the client's trace was not analyzed: " + before.ClientAnalysisProblem}), " +
            $"{afterPerSlow.ToString("0.0#", CultureInfo.InvariantCulture)} with {LongTimeoutMilliseconds} ms ({afterCount:N0} in all); p99 {StoryTable.Ms(rows[0].P99Nanoseconds)} → {StoryTable.Ms(rows[1].P99Nanoseconds)}";
        var missing = new[]
        {
            named ? null : "the short timeout's verdict did not name the retries",
            fewer ? null : "the long timeout did not cut the retries per slow request by half",
            noWorse ? null : "the p99 rose with the long timeout",
        }.Where(m => m is not null).ToList();
        return new StoryOutcome(Name, "retries per slow request", rows, missing.Count == 0,
            missing.Count == 0 ? reading : $"{reading}: {string.Join("; ", missing)} {StoryTable.NoisyMachine()}")
        {
            Tables = [RetriesVsRequests(before.ClientFinding, after.ClientFinding)],
            Notes =
            [
                "the verdict column and the retries: `slowest` on the client's own trace (its Request activities, each retry a Retry activity nested in it from the give-up of the attempt before, through the backoff, to its own end); the table counts the measured phase's requests by their retries",
            ],
        };
    }

    private static Task<IReadOnlyList<SideRun>> RunAsync(ScenarioRunner runner, string side, int timeoutMilliseconds, CancellationToken cancellationToken) =>
        runner.RunSideAsync(side, new HarnessOptions
        {
            Gc = ServerGc,
            Targets = [TargetAddress.TailDbServer],
            Client = Pool with { TimeoutMilliseconds = timeoutMilliseconds },
            ServerReadStall = new ServerReadStall(StallEveryMilliseconds, StallMilliseconds),
            Workload = runner.Workload,
        }, cancellationToken);

    private static NestedCountFinding? Retry(SideRun run) =>
        run.ClientFinding?.NestedCounts.FirstOrDefault(c => c.Activity == LoadTestEventContract.Activities.Retry);

    private static ClientReport Client(SideRun run) =>
        run.Result.Client ?? throw new LoadTestException(ExitCode.UnexpectedError, $"retries, {run.Side}: the networked run reported no client side");

    private static string Spell(NestedCountFinding? retries) =>
        retries is null ? "0" : $"{retries.SlowPerRequest.ToString("0.0#", CultureInfo.InvariantCulture)} (max {retries.SlowMax})";

    /// <summary>Requests by their number of retries, each side's whole measured phase and its slow set.</summary>
    private static List<string[]> RetriesVsRequests(TraceFinding? beforeTrace, TraceFinding? afterTrace)
    {
        IReadOnlyList<NestedCountBucketFinding>? before = Buckets(beforeTrace), after = Buckets(afterTrace);
        var table = new List<string[]>
        {
            new[] { "retries", $"requests ({ShortTimeoutMilliseconds} ms)", "of them slow", $"requests ({LongTimeoutMilliseconds} ms)", "of them slow" },
        };
        int most = Math.Max(before?.Max(b => b.Count) ?? 0, after?.Max(b => b.Count) ?? 0);
        for (int count = 0; count <= most; count++)
        {
            NestedCountBucketFinding? b = before?.FirstOrDefault(x => x.Count == count), a = after?.FirstOrDefault(x => x.Count == count);
            table.Add([count.ToString(CultureInfo.InvariantCulture), N(b?.Requests), N(b?.SlowRequests), N(a?.Requests), N(a?.SlowRequests)]);
        }

        return table;
    }

    /// <summary>A side's requests by retries; a trace without a single Retry has every request at 0 (counted from its Attempts, one per request).</summary>
    private static IReadOnlyList<NestedCountBucketFinding>? Buckets(TraceFinding? trace)
    {
        if (trace is null)
        {
            return null;
        }

        if (trace.NestedCounts.FirstOrDefault(c => c.Activity == LoadTestEventContract.Activities.Retry) is { } retries)
        {
            return retries.Table;
        }

        NestedCountFinding? any = trace.NestedCounts.Count > 0 ? trace.NestedCounts[0] : null;
        return any is null ? [] : [new NestedCountBucketFinding(0, any.Table.Sum(b => b.Requests), any.Table.Sum(b => b.SlowRequests))];
    }

    private static string N(long? value) => (value ?? 0).ToString("N0", CultureInfo.InvariantCulture);
}
