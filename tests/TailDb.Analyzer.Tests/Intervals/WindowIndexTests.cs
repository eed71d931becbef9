using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Tests.Intervals;

public sealed class WindowIndexTests
{
    [Fact]
    public void OverlapClipsWindowsToTheRequest()
    {
        var index = new WindowIndex([(0, 10), (20, 30), (40, 50)]);
        Assert.Equal(5 + 10 + 3, index.Overlap(5, 43), 9);
        Assert.Equal(0, index.Overlap(10, 20), 9);
        Assert.Equal(0, index.Overlap(60, 70), 9);
    }

    [Fact]
    public void NestedWindowsAreCountedOnce()
    {
        var index = new WindowIndex([(0, 100), (10, 20), (30, 40), (90, 120)]);
        Assert.Equal(100, index.Overlap(0, 100), 9);
        Assert.Equal(15, index.Overlap(95, 110), 9);
    }

    [Fact]
    public void ALongEarlyWindowIsFoundPastShortLaterOnes()
    {
        var index = new WindowIndex([(0, 1000), (100, 101), (200, 201)]);
        Assert.Equal(10, index.Overlap(500, 510), 9);
    }

    [Fact]
    public void PointsAreCountedHalfOpen()
    {
        var points = new PointIndex([1, 2, 2, 5, 9]);
        Assert.Equal(3, points.Count(2, 9));
        Assert.Equal(0, points.Count(6, 9));
    }
}
