using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.Workloads;

public sealed class BurstScheduleTests
{
    [Fact]
    public void A_burst_keeps_each_periods_requests_and_their_order_within_its_first_slice()
    {
        const double Period = 100, Factor = 50, Interval = 0.25; // 400 arrivals per period, due in its first 2 ticks.
        var squeezed = Enumerable.Range(0, 2000).Select(i => LoadThreads.Squeeze(i * Interval, Factor, Period)).ToList();
        Assert.Equal(squeezed.Order(), squeezed);
        var perPeriod = squeezed.GroupBy(d => Math.Floor(d / Period)).ToList();
        Assert.All(perPeriod, g => Assert.Equal(400, g.Count()));
        Assert.All(squeezed, d => Assert.True(d % Period < Period / Factor, $"{d} falls outside its period's burst"));
    }

    [Theory]
    [InlineData(0.5, 4000.0, "--burst-factor must be 1")]
    [InlineData(5.0, null, "--burst-factor needs an open loop")]
    public void A_burst_that_cannot_be_scheduled_is_refused_naming_the_flag(double factor, double? rate, string problem)
    {
        var options = new WorkloadOptions { BurstFactor = factor, Rate = rate };
        Assert.StartsWith(problem, options.Validate(), StringComparison.Ordinal);
    }
}
