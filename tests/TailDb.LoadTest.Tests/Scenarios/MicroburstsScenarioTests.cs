using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class MicroburstsScenarioTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Bursts_at_the_same_mean_rate_queue_more_of_the_slow_sets_time_than_smooth_arrivals()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new MicroburstsScenario());
        output.WriteLine(printed);
        StoryRow bursts = outcome.Rows[0], smooth = outcome.Rows[1];
        // Per second the two look alike: the same requests in the same measured seconds.
        Assert.InRange(bursts.Requests, smooth.Requests * 0.95, smooth.Requests * 1.05);
        Assert.True(bursts.Value > smooth.Value, $"queued share with bursts {bursts.Value}, smooth {smooth.Value}");
    }
}
