using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class BucketsScenarioTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Buckets_growing_by_1_1_put_p99_and_p99_9_closer_to_the_exact_values_than_buckets_growing_by_2()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new BucketsScenario());
        output.WriteLine(printed);
        StoryRow coarse = Assert.Single(outcome.Rows, r => r.Side.StartsWith(BucketsScenario.Coarse, StringComparison.Ordinal));
        StoryRow fine = Assert.Single(outcome.Rows, r => r.Side.StartsWith(BucketsScenario.Fine, StringComparison.Ordinal));
        StoryRow exact = outcome.Rows[0];
        if (exact.P99Nanoseconds < 1_000_000)
        {
            // Every scheme's first bucket is 0-1 ms: below 1 ms they all hold the rank in the same bucket.
            Assert.True(fine.Value <= coarse.Value, $"mean error at p99/p99.9: growth 1.1 {fine.Value}%, growth 2.0 {coarse.Value}%");
            return;
        }

        // An interpolated estimate stays inside the bucket that holds the exact value: past 1 ms a 1.1 bucket is 10% wide.
        Assert.InRange(fine.Value, 0, 10.0001);
        Assert.True(fine.Value < coarse.Value, $"mean error at p99/p99.9: growth 1.1 {fine.Value}%, growth 2.0 {coarse.Value}%");
    }
}
