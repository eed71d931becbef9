using TailDb.Analyzer.Findings;
using TailDb.LoadTest.FanOut;
using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using TailDb.LoadTest.Tests.Scenarios;
using TailDb.LoadTest.Workloads;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.FanOut;

/// <summary>Short fan-out runs against three real TailDb servers, traced, directly and through twemproxy.</summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class FanOutRunTests(ITestOutputHelper output) : IDisposable
{
    private readonly DirectoryInfo _traces = Directory.CreateTempSubdirectory("taildb-fanout-test-");

    private FanOutOptions Options(FanOutRoute route, ShardStall? stall = null) => new()
    {
        Shards = 3,
        Workload = new WorkloadOptions { Rate = 500, Threads = 2, Keys = 3_000, ReadRatio = 1, AppAllocBytes = 0, DurationSeconds = 2, WarmupSeconds = 1 },
        Routes = [route],
        TraceDirectory = _traces.FullName,
        Stall = stall,
    };

    [Fact]
    public async Task Directly_the_request_p99_lies_between_the_per_get_p99_and_the_slowest_of_n_prediction()
    {
        FanOutRunResult run = await FanOutRun.RunAsync(Options(FanOutRoute.Direct), null, CancellationToken.None);
        FanOutResult result = AssertBand(run);
        // The scenario's table from the same run: a shard named for each of the ten slowest.
        StoryOutcome outcome = new FanOutScenario().Outcome(run);
        using var printed = new StringWriter();
        StoryTable.Write(printed, new FanOutScenario(), outcome, StoryRun.Brief);
        output.WriteLine(printed.ToString());
        List<string[]> slowest = outcome.Tables[1];
        Assert.Equal(FanOutScenario.Attributed, slowest.Count - 1);
        Assert.All(slowest.Skip(1), row => Assert.Matches("^(shard [0-2]: |no one shard: )", row[^1]));
        Assert.Equal(result.Requests, outcome.Rows[0].Requests);
    }

    [NutcrackerFact]
    public async Task Through_twemproxy_the_request_p99_lies_between_the_per_get_p99_and_the_slowest_of_n_prediction()
    {
        FanOutRunResult run = await FanOutRun.RunAsync(Options(FanOutRoute.Twemproxy), null, CancellationToken.None);
        Assert.Empty(run.Skipped);
        FanOutResult result = AssertBand(run);
        Assert.Equal(FanOutRoute.Twemproxy, result.Route);
    }

    /// <summary>
    /// Shard 1's server is stopped for 30 ms every 200 ms (SIGSTOP: every thread of it stops, as in
    /// a stop-the-world pause, and its trace goes silent): the slowest requests waited for shard 1,
    /// and the attribution, from the client's and the shards' traces, names it and says its server did not run.
    /// </summary>
    [Fact]
    public async Task When_one_shard_pauses_the_attribution_names_that_shard_for_the_slowest_requests()
    {
        var stall = new ShardStall(Shard: 1, Milliseconds: 30, EveryMilliseconds: 200);
        FanOutRunResult run = await FanOutRun.RunAsync(Options(FanOutRoute.Direct, stall), null, CancellationToken.None);
        FanOutSide side = Assert.Single(run.Sides);
        Assert.True(side.Stalls > 5, $"only {side.Stalls} stalls were made");
        FanOutAttribution? blame = FanOutFindings.TryAttribute(side.ClientTrace, run.ShardTraces, 10, out string? problem);
        Assert.True(blame is not null, problem);
        foreach (FanOutBlame b in blame.Slowest)
        {
            output.WriteLine($"{b.Rank}: {b.RequestMs:0.00} ms, {b.Describe()}");
        }

        Assert.Equal(10, blame.Slowest.Count);
        var onShard1 = blame.Slowest.Where(b => b.Shard == 1).ToList();
        Assert.True(onShard1.Count >= 7, $"shard 1 named for {onShard1.Count} of the 10 slowest");
        Assert.All(onShard1, b => Assert.Equal(ShardHold.Silent, b.Hold));
        Assert.All(onShard1, b => Assert.False(b.Together, $"shard 1's Get {b.GetMs} ms was no slower than the others (next {b.NextGetMs} ms)"));
        Assert.Equal(1, blame.MostBlamed?.Shard);
    }

    private FanOutResult AssertBand(FanOutRunResult run)
    {
        FanOutResult r = Assert.Single(run.Sides).Result;
        output.WriteLine($"{r.Route}: {r.Requests} requests; Get p50 {r.Get.P50} p99 {r.Get.P99} ns; request p99 (from send) {r.Uncorrected.P99} ns; predicted {r.PredictedP99} ns; " +
            $"over the Get p99: {r.MeasuredShareOverGetP99:P1} (1-(1-p)^N {r.PredictedShareOverGetP99:P1})");
        Assert.Equal(0, r.ErrorReplies);
        Assert.True(r.Requests > 500, $"only {r.Requests} requests");
        Assert.All(r.PerShard, s => Assert.True(s.Count > 500, "a shard served too few Gets"));
        // The slowest of N is never faster than one Get (HdrHistogram's buckets: within 0.1%)...
        Assert.True(r.Uncorrected.P99 >= r.Get.P99 * 0.999, $"request p99 {r.Uncorrected.P99} ns below the per-Get p99 {r.Get.P99} ns");
        // ...nor, Gets being independent or slow together, slower than N independent Gets would make it.
        Assert.True(r.Uncorrected.P99 <= r.PredictedP99 * FanOutScenario.BandSlack, $"request p99 {r.Uncorrected.P99} ns above the prediction {r.PredictedP99} ns × {FanOutScenario.BandSlack}");
        Assert.True(r.MeasuredShareOverGetP99 >= 0.009, $"only {r.MeasuredShareOverGetP99:P2} of requests over the per-Get p99");
        return r;
    }

    public void Dispose() => _traces.Delete(recursive: true);
}
