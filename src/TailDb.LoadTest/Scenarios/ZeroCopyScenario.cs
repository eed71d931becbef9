using TailDb.Analyzer.Causes;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 003: a service whose tail was GC driven by copying every request's bytes (strings made from
/// a buffer) until a zero-copy decode removed the garbage. Before: `--api copy` (Get returns a new
/// array) with a handler's 16 KiB of garbage per request; after: `--api zero-copy` (TryGet into a
/// reused buffer) and no garbage. Workstation GC both times.
/// </summary>
public sealed class ZeroCopyScenario : IScenario
{
    /// <summary>The default workload's handler garbage: what the before allocates per request on top of the copy.</summary>
    public const int RequestGarbageBytes = 16 * 1024;

    public string Name => "zero-copy";

    public string Seed => "003";

    public string Sides => "--api copy with 16 KiB of request garbage → --api zero-copy without";

    public string Shows => "p99 and the GC pauses' share of the slowest 1% drop once requests stop allocating; the before's verdict names GC";

    public int Runs(ScenarioSettings settings) => 2;

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        var before = await runner.RunSideAsync("copy", new HarnessOptions { Gc = "workstation", Workload = runner.Workload with { Api = ReadApi.Copy, AppAllocBytes = RequestGarbageBytes } }, cancellationToken)
            .ConfigureAwait(false);
        var after = await runner.RunSideAsync("zero-copy", new HarnessOptions { Gc = "workstation", Workload = runner.Workload with { Api = ReadApi.ZeroCopy, AppAllocBytes = 0 } }, cancellationToken)
            .ConfigureAwait(false);
        var rows = new[] { StoryTable.GcRow("copy + garbage", before), StoryTable.GcRow("zero-copy", after) };
        double beforeShare = rows[0].Value, afterShare = rows[1].Value;
        bool shareDrops = afterShare < beforeShare;
        bool p99Drops = rows[1].P99Nanoseconds < rows[0].P99Nanoseconds;
        bool namesGc = rows[0].VerdictKind == CauseKind.GcPause;
        string figures = $"GC share of the slow set {StoryTable.Percent(beforeShare)} → {StoryTable.Percent(afterShare)}, p99 {StoryTable.Ms(rows[0].P99Nanoseconds)} → {StoryTable.Ms(rows[1].P99Nanoseconds)}";
        var missing = new[]
        {
            shareDrops ? null : "the GC share did not drop",
            p99Drops ? null : "the p99 did not drop",
            namesGc ? null : "the before's verdict does not name GC",
        }.Where(m => m is not null).ToList();
        return new StoryOutcome(Name, "GC share", rows, missing.Count == 0,
            missing.Count == 0
                ? $"{figures}; the before's verdict names GC"
                : $"{figures}: {string.Join("; ", missing)} {StoryTable.NoisyMachine()}");
    }
}
