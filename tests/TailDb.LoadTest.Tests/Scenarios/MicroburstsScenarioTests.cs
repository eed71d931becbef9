using TailDb.LoadTest.Scenarios;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Scenarios;

[Collection(WorkerProcessesGroup.Name)]
public sealed class MicroburstsScenarioTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Bursts_at_the_same_mean_rate_make_requests_wait_where_smooth_arrivals_do_not()
    {
        var (outcome, printed) = await StoryRun.RunAsync(new MicroburstsScenario());
        output.WriteLine(printed);
        StoryRow bursts = outcome.Rows[0], smooth = outcome.Rows[1];
        // Per second the two look alike: the same requests in the same measured seconds.
        Assert.InRange(bursts.Requests, smooth.Requests * 0.95, smooth.Requests * 1.05);
        // The median, not the tail: half the requests of a burst wait behind the other half, while a
        // loaded machine's stalls (tens of ms at load 30) can make either side's slowest 1%.
        Assert.True(bursts.P50Nanoseconds > smooth.P50Nanoseconds, $"p50 with bursts {bursts.P50Nanoseconds} ns, smooth {smooth.P50Nanoseconds} ns");
    }
}
