using System.Globalization;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Findings;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.Tracing;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 002: a client whose latency rose while the database's own metrics stayed flat, because its
/// session pool had no idle session and requests waited for one. A TailDb server this scenario
/// starts (workstation GC, traced: its Command activities are the server's own latency), driven by
/// <see cref="Threads"/> load threads through a pool of one connection, then through a pool of one
/// connection per thread. Client and server percentiles side by side; the client's own trace (its
/// Request activities with PoolWait nested) names the wait, beside its counters (pool waits, the
/// queue from intended start to the send).
/// </summary>
public sealed class PoolWaitScenario : IScenario
{
    /// <summary>The client's concurrency: load threads, each with a request due in turn.</summary>
    public const int Threads = 8;

    /// <summary>The pool that is too small: every thread takes turns on one connection.</summary>
    public const int SmallPool = 1;

    /// <summary>The server's GC mode, stated in the table's heading.</summary>
    public const string ServerGc = "workstation";

    private static readonly string[] SideBySideHeader = ["side", "client p50", "client p99", "server p50", "server p99", "pool waits", "client queue p99"];

    public string Name => "pool-wait";

    public string Seed => "002";

    public string Sides => $"{Threads} load threads on a pool of {SmallPool} connection → a pool of {Threads}; a TailDb server under {ServerGc} GC, started and stopped here";

    public string Shows => "the client's p99 grows while the server's own command p99 stays flat; the client's queue (the wait for a pooled connection) is what the client saw and the server did not";

    public int Runs(ScenarioSettings settings) => 2;

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        var small = await RunAsync(runner, "small-pool", SmallPool, cancellationToken).ConfigureAwait(false);
        var fits = await RunAsync(runner, "pool-fits", Threads, cancellationToken).ConfigureAwait(false);
        SideRun before = small[0], after = fits[0];
        ClientReport beforeClient = Client(before), afterClient = Client(after);
        double beforeServer = before.Finding?.P99Ms ?? double.NaN, afterServer = after.Finding?.P99Ms ?? double.NaN;
        var rows = new[]
        {
            StoryTable.Row($"pool of {SmallPool}", small, beforeClient.Queue.P99 / 1e6, Spell(beforeClient, beforeServer)),
            StoryTable.Row($"pool of {Threads}", fits, afterClient.Queue.P99 / 1e6, Spell(afterClient, afterServer)),
        };
        var sideBySide = new List<string[]>
        {
            SideBySideHeader,
            SideBySide(rows[0].Side, before, beforeClient),
            SideBySide(rows[1].Side, after, afterClient),
        };
        double beforeClientP99 = rows[0].P99Nanoseconds / 1e6;
        bool clientGrows = rows[0].P99Nanoseconds > rows[1].P99Nanoseconds;
        bool serverBelowClient = beforeServer < beforeClientP99;
        bool poolWaited = beforeClient.Counts.PoolWaits > afterClient.Counts.PoolWaits && beforeClient.Queue.P99 > afterClient.Queue.P99;
        // "Flat": within a factor of two of the other side's, where the client's moved more than that.
        bool serverFlat = afterServer > 0 && beforeServer / afterServer is > 0.5 and < 2;
        // The client's own trace names the wait: its slow requests' time inside PoolWait activities.
        TraceFinding? clientTrace = before.ClientFinding;
        CauseFinding? poolWait = clientTrace?.Causes.FirstOrDefault(c => c.Kind == CauseKind.NestedActivity && c.Cause.StartsWith(LoadTestEventContract.Activities.PoolWait, StringComparison.Ordinal));
        bool poolNamed = clientTrace?.VerdictCause is { } named && named.StartsWith(LoadTestEventContract.Activities.PoolWait, StringComparison.Ordinal);
        string traced = clientTrace is null
            ? $"the client's trace was not analyzed ({before.ClientAnalysisProblem ?? "none recorded"})"
            : $"the client's trace: {StoryTable.Percent(poolWait?.SlowShare ?? 0)} of its slowest 1%'s response time waiting for a pooled connection (PoolWait)" +
              (poolNamed ? "" : $", its verdict names {clientTrace.VerdictCause ?? "nothing"} ({StoryTable.Percent(clientTrace.VerdictShare)})");
        string verdict = $"the client's connection pool: {traced}; {beforeClient.Counts.PoolWaits:N0} requests waited for one of {SmallPool} connection{(SmallPool == 1 ? "" : "s")}, " +
            $"their queue p99 {Ms(beforeClient.Queue.P99 / 1e6)} of the client's p99 {Ms(beforeClientP99)}, while the server's own p99 was {Ms(beforeServer)}";
        var missing = new[]
        {
            clientGrows ? null : "the client's p99 did not grow with the small pool",
            serverBelowClient ? null : "the server's p99 was not below the client's",
            poolWaited ? null : "the small pool did not wait more",
            serverFlat ? null : "the server's p99 did not stay within 2x",
            poolNamed ? null : "the client trace's verdict did not name the pool wait",
        }.Where(m => m is not null).ToList();
        return new StoryOutcome(Name, "client queue p99 (server p99)", rows, missing.Count == 0,
            missing.Count == 0 ? $"verdict: {verdict}" : $"{verdict}: {string.Join("; ", missing)} {StoryTable.NoisyMachine()}")
        {
            Tables = [sideBySide],
            Notes =
            [
                "client: the load test's latency from each request's intended start, and `slowest` on the client's own trace (the verdict column: its Request activities with PoolWait, Attempt and Retry nested); server: `slowest` on the server's trace (its Command activities, arrival at the server to reply)",
            ],
        };
    }

    private static Task<IReadOnlyList<SideRun>> RunAsync(ScenarioRunner runner, string side, int connections, CancellationToken cancellationToken) =>
        runner.RunSideAsync(side, new HarnessOptions
        {
            Gc = ServerGc,
            Targets = [TargetAddress.TailDbServer],
            Client = new ClientOptions { Connections = connections, Pipeline = 1 },
            Workload = runner.Workload with { Threads = Threads },
        }, cancellationToken);

    private static ClientReport Client(SideRun run) =>
        run.Result.Client ?? throw new LoadTestException(ExitCode.UnexpectedError, $"pool-wait, {run.Side}: the networked run reported no client side");

    private static string[] SideBySide(string side, SideRun run, ClientReport client)
    {
        var c = run.Result.Overall.Corrected;
        return
        [
            side, ReportRenderer.Milliseconds(c.P50), ReportRenderer.Milliseconds(c.P99),
            run.Finding is { } f ? Format(f.P50Ms) : "n/a", run.Finding is { } g ? Format(g.P99Ms) : "n/a",
            client.Counts.PoolWaits.ToString("N0", CultureInfo.InvariantCulture), ReportRenderer.Milliseconds(client.Queue.P99),
        ];
    }

    private static string Spell(ClientReport client, double serverP99) => $"{ReportRenderer.Milliseconds(client.Queue.P99)} ({Format(serverP99)})";

    private static string Format(double ms) => double.IsNaN(ms) ? "n/a" : ReportRenderer.Milliseconds((long)Math.Round(ms * 1e6));

    private static string Ms(double ms) => Format(ms) + " ms";
}
