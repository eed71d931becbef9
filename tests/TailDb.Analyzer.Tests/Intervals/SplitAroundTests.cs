using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Tests.Intervals;

/// <summary>
/// A sampler tick's wait for a safe point is split around GC pauses: the part a GC covers is the
/// GC's (the tick waited for the GC to finish), only the rest can be a thread holding the process up.
/// </summary>
public sealed class SplitAroundTests
{
    private static ((double, double)[] Outside, (double, double)[] Covered) Split((double, double)[] gcs, double from, double to)
    {
        List<(double, double)> outside = [], covered = [];
        Windows.SplitAround(gcs, from, to, outside, covered);
        return ([.. outside], [.. covered]);
    }

    [Fact]
    public void A_wait_no_GC_overlaps_stays_whole()
    {
        var (outside, covered) = Split([(0, 1), (10, 12)], 2, 9);
        Assert.Equal([(2.0, 9.0)], outside);
        Assert.Empty(covered);
    }

    [Fact]
    public void A_wait_inside_a_GC_pause_is_all_the_GCs()
    {
        var (outside, covered) = Split([(1, 20)], 2, 9);
        Assert.Empty(outside);
        Assert.Equal([(2.0, 9.0)], covered);
    }

    [Fact]
    public void A_wait_across_two_pauses_keeps_only_the_gaps_between_them()
    {
        var (outside, covered) = Split([(0, 3), (5, 6), (8, 30)], 2, 10);
        Assert.Equal([(3.0, 5.0), (6.0, 8.0)], outside);
        Assert.Equal([(2.0, 3.0), (5.0, 6.0), (8.0, 10.0)], covered);
    }

    [Fact]
    public void An_empty_wait_adds_nothing()
    {
        var (outside, covered) = Split([(0, 3)], 4, 4);
        Assert.Empty(outside);
        Assert.Empty(covered);
    }
}
