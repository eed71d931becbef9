using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class BucketsScenarioTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Buckets_growing_by_1_1_put_p99_and_p99_9_within_a_tenth_of_the_exact_values_past_1_ms_and_every_scheme_agrees_below_it()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new BucketsScenario());
        output.WriteLine(printed);
        StoryRow coarse = Assert.Single(outcome.Rows, r => r.Side.StartsWith(BucketsScenario.Coarse, StringComparison.Ordinal));
        StoryRow fine = Assert.Single(outcome.Rows, r => r.Side.StartsWith(BucketsScenario.Fine, StringComparison.Ordinal));
        StoryRow exact = outcome.Rows[0];

        // What the schemes guarantee, not which one a run's luck favours: whether 1.1 beats 2.0 is the
        // story's finding, printed as shown or not (a CI run at 15:23 UTC on 2026-11-26 had p99 0.290 ms,
        // in every scheme's first bucket, and p99.9 1.849 ms estimated 1.896 by 1.1 and 1.895 by 2.0).
        foreach (var (name, exactNs, fineNs, coarseNs) in new[]
        {
            ("p99", exact.P99Nanoseconds, fine.P99Nanoseconds, coarse.P99Nanoseconds),
            ("p99.9", exact.P999Nanoseconds, fine.P999Nanoseconds, coarse.P999Nanoseconds),
        })
        {
            if (exactNs < 1_000_000)
            {
                // Every scheme's first bucket is 0-1 ms: below 1 ms they all hold the rank in it and say the same.
                Assert.True(fineNs == coarseNs, $"{name} {exactNs} ns: growth 1.1 says {fineNs}, growth 2.0 {coarseNs}");
                continue;
            }

            // An interpolated estimate stays inside the bucket that holds the exact value: past 1 ms a 1.1 bucket is 10% wide.
            double error = Math.Abs(fineNs - exactNs) / (double)exactNs;
            Assert.True(error <= 0.100001, $"{name} {exactNs} ns: growth 1.1 says {fineNs}, {error:P1} off");
        }
    }
}
