using TailDb.Analyzer.Attribution;

namespace TailDb.Analyzer.Tests.Attribution;

/// <summary>
/// A sample-based cause is named for a request only by its samples beyond the ordinary, and only
/// when that excess is more than chance and more than one tick.
/// </summary>
public sealed class RequestBlameTests
{
    [Fact]
    public void Nine_app_code_samples_of_a_stalled_thread_whose_ordinary_running_samples_are_90_percent_app_code_are_not_an_excess()
    {
        // 9 running samples, all app code, against 90% ordinary: 8.1 expected, 0.9 over.
        Assert.Equal(0, RequestBlame.Significant(excess: 9 - 8.1, variance: 9 * 0.9 * 0.1));
    }

    [Fact]
    public void Twelve_sleeping_samples_where_ordinary_requests_are_never_caught_sleeping_are_all_excess()
    {
        Assert.Equal(12, RequestBlame.Significant(excess: 12, variance: 0));
    }

    [Fact]
    public void A_single_tick_is_never_a_cause_however_rare_its_category()
    {
        Assert.Equal(0, RequestBlame.Significant(excess: 1, variance: 0));
    }

    [Fact]
    public void An_excess_within_two_standard_deviations_is_chance()
    {
        // 20 samples against a 50% ordinary share: 10 expected, spread sqrt(5) = 2.24, so 14 is within 2 sigma.
        Assert.Equal(0, RequestBlame.Significant(excess: 14 - 10, variance: 20 * 0.5 * 0.5));
        Assert.Equal(6, RequestBlame.Significant(excess: 16 - 10, variance: 20 * 0.5 * 0.5));
    }
}
