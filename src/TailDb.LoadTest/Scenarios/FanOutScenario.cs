using System.Globalization;
using TailDb.Analyzer.Findings;
using TailDb.LoadTest.FanOut;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Scenarios;

/// <summary>
/// Seed 001's fan-out: one slow shard makes a fan-out request slow. Each request is
/// <see cref="Shards"/> Gets, one per TailDb server, waited for together: through twemproxy
/// (nutcracker, ketama) and directly (the client computes each key's shard with the same ring).
/// The servers run under <see cref="ServerGc"/> GC, started, traced and stopped here
/// (<see cref="FanOutRun"/>). The figure: the request p99 beside what the per-Get distribution
/// predicts for the slowest of N (1-(1-p)^N), and, from the client's and the shards' traces, the
/// shard whose pause made each of the ten slowest requests slow.
/// </summary>
public sealed class FanOutScenario : IScenario
{
    public const int Shards = 3;

    public const string ServerGc = "workstation";

    /// <summary>Fan-out requests per second (each <see cref="Shards"/> Gets).</summary>
    public const double Rate = 1000;

    /// <summary>How many of the slowest requests are attributed to a shard.</summary>
    public const int Attributed = 10;

    /// <summary>The request p99 may exceed the prediction by this much and still be "within the band" (HdrHistogram's buckets, a short run's few slow requests).</summary>
    public const double BandSlack = 1.25;

    private static readonly string[] PredictionHeader =
        ["side", "N", "Get p50", "Get p99", "request p99 (from send)", "predicted p99 (Get at 100·0.99^(1/N))", "requests over the Get p99", "1-(1-p)^N"];

    private static readonly string[] SlowestHeader = ["side", "rank", "request (from send)", "queued before it", "shard", "its Get", "next Get", "what held it"];

    public string Name => "fan-out";

    public string Seed => "001";

    public string Sides => $"each request {Shards} Gets over {Shards} TailDb servers ({ServerGc} GC, started and stopped here): through twemproxy (ketama) → directly (the client computes the shard)";

    public string Shows => "the request p99 beside the slowest-of-N prediction from the per-Get distribution (1-(1-p)^N); the shard whose pause made each of the ten slowest requests slow, from the client's and the servers' traces";

    public int Runs(ScenarioSettings settings) => 2;

    /// <summary>The load both sides run: reads only, the scenario's rate, no handler garbage (the client makes none).</summary>
    public static Workloads.WorkloadOptions Load(ScenarioRunner runner)
    {
        ArgumentNullException.ThrowIfNull(runner);
        return runner.Workload with { Rate = Rate, Threads = 2, ReadRatio = 1, AppAllocBytes = 0 };
    }

    public async Task<StoryOutcome> RunAsync(ScenarioRunner runner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(runner);
        FanOutRunResult run = await FanOutRun.RunAsync(
            new FanOutOptions
            {
                Shards = Shards,
                ServerGc = ServerGc,
                Workload = Load(runner),
                TraceDirectory = runner.Traces.FullName,
                RuntimeConfigDirectory = runner.Settings.RuntimeConfigDirectory,
            },
            runner.Progress,
            cancellationToken).ConfigureAwait(false);
        return Outcome(run);
    }

    /// <summary>The table, the prediction, the attribution and the reading of one run.</summary>
    public StoryOutcome Outcome(FanOutRunResult run)
    {
        ArgumentNullException.ThrowIfNull(run);
        var rows = new List<StoryRow>();
        var prediction = new List<string[]> { PredictionHeader };
        var slowest = new List<string[]> { SlowestHeader };
        var notes = new List<string>(run.Skipped);
        var missing = new List<string>();
        var held = new List<string>();
        foreach (FanOutSide side in run.Sides)
        {
            string name = side.Route == FanOutRoute.Twemproxy ? "twemproxy" : "direct";
            FanOutResult r = side.Result;
            FanOutAttribution? blame = FanOutFindings.TryAttribute(side.ClientTrace, run.ShardTraces, Attributed, out string? problem);
            double ratio = r.PredictedP99 > 0 ? (double)r.Uncorrected.P99 / r.PredictedP99 : double.NaN;
            string verdict = blame is null || blame.Slowest.Count == 0
                ? "not attributed: " + (problem ?? "no request had its Gets traced")
                : (blame.MostBlamed is { } most ? $"shard {most.Shard} in {most.Count} of the {blame.Slowest.Count} slowest ({Holds(blame, most.Shard)})" : "no one shard")
                    + (blame.Together > 0 ? $"; {blame.Together} slow on every shard together" : "");
            rows.Add(new StoryRow(name, r.Requests, r.Corrected.P50, r.Corrected.P99, r.Corrected.P999, ratio,
                $"{Ms(r.Uncorrected.P99)} vs {Ms(r.PredictedP99)}", null, verdict));
            prediction.Add(
            [
                name, r.Shards.ToString(CultureInfo.InvariantCulture), Ms(r.Get.P50), Ms(r.Get.P99), Ms(r.Uncorrected.P99), Ms(r.PredictedP99),
                StoryTable.Percent(r.MeasuredShareOverGetP99), StoryTable.Percent(r.PredictedShareOverGetP99),
            ]);
            foreach (FanOutBlame b in blame?.Slowest ?? [])
            {
                slowest.Add([name, b.Rank.ToString(CultureInfo.InvariantCulture), Ms(b.RequestMs), Ms(b.QueuedMs), b.Shard.ToString(CultureInfo.InvariantCulture), Ms(b.GetMs), Ms(b.NextGetMs), b.Describe()]);
            }

            if (r.ErrorReplies > 0)
            {
                notes.Add($"{name}: {r.ErrorReplies:N0} Gets got an error reply");
            }

            if (side.Stalls > 0)
            {
                notes.Add($"{name}: a shard was stopped {side.Stalls} times on purpose (a stall injection)");
            }

            bool amplified = r.MeasuredShareOverGetP99 > 0.015;
            bool inBand = r.Uncorrected.P99 >= r.Get.P99 && r.Uncorrected.P99 <= r.PredictedP99 * BandSlack;
            if (!amplified)
            {
                missing.Add($"{name}: only {StoryTable.Percent(r.MeasuredShareOverGetP99)} of requests were slower than the per-Get p99 (1-(1-p)^N predicts {StoryTable.Percent(r.PredictedShareOverGetP99)}): the Gets were slow together, not one shard at a time");
            }

            if (!inBand)
            {
                missing.Add($"{name}: the request p99 {Ms(r.Uncorrected.P99)} is outside [per-Get p99 {Ms(r.Get.P99)}, predicted {Ms(r.PredictedP99)} × {BandSlack}]");
            }

            held.Add($"{name}: request p99 {Ms(r.Uncorrected.P99)} (from send) against {Ms(r.PredictedP99)} predicted from the per-Get distribution, {StoryTable.Percent(r.MeasuredShareOverGetP99)} of requests over the per-Get p99 (predicted {StoryTable.Percent(r.PredictedShareOverGetP99)})");
        }

        notes.Add("p50/p99/p99.9: each request from its arrival (its scheduled start, as in the other stories); the prediction compares like with like: the request from its first send against each Get's send → reply");
        notes.Add($"the {Attributed} slowest: by the fan-out's own time (first send to last reply; a request queued behind a slow one is that one's shard's doing); what held it: the shard whose Get answered last, laid over that shard's own trace (its GC pauses; a span with no event at all is a process that did not run); when the next-slowest Get took {StoryTable.Percent(FanOutBlame.TogetherShare)} of its time or more, the Gets were slow together and no one shard is named");
        bool shown = run.Sides.Count > 0 && missing.Count == 0;
        string finding = run.Sides.Count == 0
            ? "no side ran"
            : shown ? string.Join("; ", held) : $"{string.Join("; ", missing)} {StoryTable.NoisyMachine()}";
        return new StoryOutcome(Name, "request p99 vs predicted", rows, shown, finding) { Tables = [prediction, slowest], Notes = notes };
    }

    private static string Holds(FanOutAttribution blame, int shard)
    {
        var holds = blame.Slowest.Where(b => b.Shard == shard && !b.Together).GroupBy(b => b.Hold).OrderByDescending(g => g.Count()).First();
        return holds.Key switch
        {
            ShardHold.GcPause => "its GC pauses",
            ShardHold.Silent => "its server did not run",
            _ => "its server was running",
        };
    }

    private static string Ms(long nanoseconds) => ReportRenderer.Milliseconds(nanoseconds) + " ms";

    private static string Ms(double milliseconds) => Ms((long)Math.Round(milliseconds * 1e6));
}
