using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

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

    [Fact]
    public void Page_faults_split_into_kernel_samples_and_a_preempted_wait_outrank_a_gc_pause_longer_than_either_part()
    {
        // A request queued behind a faulting one: 52.4 ms gen1 pause, 51.6 ms preempted mid-fault, 17 ms of fault samples.
        double[] values = [51.762, 17.017, 51.625];
        CauseGroup[] groups = [CauseGroup.GcPauses, CauseGroup.PageFaults, CauseGroup.PageFaults];

        var (cause, value) = RequestBlame.Largest(values, groups);

        Assert.Equal(2, cause); // named after the larger part, the wait mid-fault
        Assert.Equal(68.642, value, 3);
    }

    [Fact]
    public void A_gc_pause_longer_than_every_page_fault_part_together_is_still_named()
    {
        double[] values = [70, 17, 51.6];
        CauseGroup[] groups = [CauseGroup.GcPauses, CauseGroup.PageFaults, CauseGroup.PageFaults];

        Assert.Equal((0, 70.0), RequestBlame.Largest(values, groups));
    }

    [Fact]
    public void Waits_for_a_cpu_held_by_different_holders_are_not_added_up()
    {
        // Two holders of 6 ms each (lines of their own) against a 10 ms pause: the pause.
        double[] values = [6, 10, 6];
        CauseGroup[] groups = [CauseGroup.None, CauseGroup.GcPauses, CauseGroup.None];

        Assert.Equal((1, 10.0), RequestBlame.Largest(values, groups));
    }

    [Fact]
    public void Gc_pauses_of_two_generations_are_one_cause_named_by_the_longer()
    {
        double[] values = [4, 8, 5];
        CauseGroup[] groups = [CauseGroup.GcPauses, CauseGroup.None, CauseGroup.GcPauses];

        Assert.Equal((2, 9.0), RequestBlame.Largest(values, groups));
    }

    [Fact]
    public void Nothing_positive_names_nothing()
    {
        Assert.Equal((-1, 0.0), RequestBlame.Largest([0, 0], [CauseGroup.None, CauseGroup.PageFaults]));
    }
}
