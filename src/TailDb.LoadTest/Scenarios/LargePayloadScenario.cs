using System.Globalization;
using TailDb.Analyzer.Findings;
using TailDb.LoadTest.Harness;
using TailDb.Tracing;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 000, "effect of large payload": one request in 20 carried a larger payload, and the slow
/// traces were the large ones. Before: every second put writes a 256 KiB value (puts are 9% of the
/// default mix, and reads of those keys return them: about 1 request in 20); after: all 256 B.
/// The figure is the analyzer's payload correlation of the Request's valueBytes with latency. Both
/// sides read zero-copy and allocate no handler garbage, so GC does not make the tail a payload
/// would otherwise have to compete with.
/// </summary>
public sealed class LargePayloadScenario : IScenario
{
    public const int LargeBytes = 256 * 1024;

    public string Name => "large-payload";

    public string Seed => "000";

    public string Sides => "1 request in ~20 carries a 256 KiB value → all 256 B";

    public string Shows => "the analyzer's payload correlation names value size for the before's slow set (slow requests' mean valueBytes far above the rest's); p99 drops once values are small";

    public int Runs(ScenarioSettings settings) => 2;

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        var before = await runner.RunSideAsync("large", new HarnessOptions { Gc = "workstation", Workload = runner.Workload with { LargeEvery = 2, LargeSize = LargeBytes, AppAllocBytes = 0 } }, cancellationToken)
            .ConfigureAwait(false);
        var after = await runner.RunSideAsync("small", new HarnessOptions { Gc = "workstation", Workload = runner.Workload with { LargeEvery = 0, AppAllocBytes = 0 } }, cancellationToken)
            .ConfigureAwait(false);
        PayloadFinding? large = ValueSize(before[0].Finding), small = ValueSize(after[0].Finding);
        var rows = new[]
        {
            StoryTable.Row("1 in ~20 large", before, large?.Correlation ?? 0, Spell(large)),
            StoryTable.Row("all small", after, small?.Correlation ?? 0, Spell(small)),
        };
        bool named = large is { Correlation: > 0.1 } && large.SlowMean > 2 * large.RestMean;
        bool p99Drops = rows[1].P99Nanoseconds < rows[0].P99Nanoseconds;
        string figures = $"valueBytes in the slow set {Mean(large)} against {Mean(large, rest: true)} in the rest (r = {R(large)}); p99 {StoryTable.Ms(rows[0].P99Nanoseconds)} → {StoryTable.Ms(rows[1].P99Nanoseconds)}";
        var missing = new[]
        {
            named ? null : "the payload correlation does not single out value size",
            p99Drops ? null : "the p99 did not drop",
        }.Where(m => m is not null).ToList();
        return new StoryOutcome(Name, "valueBytes: slow vs rest (r)", rows, missing.Count == 0,
            missing.Count == 0 ? figures : $"{figures}: {string.Join("; ", missing)} {StoryTable.NoisyMachine()}")
        {
            Notes = large is null ? [] : [$"the before's payload row: {large.Activity}.{large.Field}: {large.Finding}"],
        };
    }

    /// <summary>The Request activity's valueBytes row of the payload correlation.</summary>
    public static PayloadFinding? ValueSize(TraceFinding? finding) =>
        finding?.Payload.FirstOrDefault(p => p.Field == LoadTestEventContract.Fields.ValueBytes && p.Activity == LoadTestEventContract.Activities.Request);

    private static string Spell(PayloadFinding? row) => row is null ? "n/a" : $"{Mean(row)} vs {Mean(row, rest: true)} (r {R(row)})";

    private static string Mean(PayloadFinding? row, bool rest = false) =>
        row is null ? "n/a" : $"{((rest ? row.RestMean : row.SlowMean) / 1024).ToString("0.#", CultureInfo.InvariantCulture)} KiB";

    private static string R(PayloadFinding? row) => row?.Correlation is { } r ? r.ToString("0.00", CultureInfo.InvariantCulture) : "n/a";
}
