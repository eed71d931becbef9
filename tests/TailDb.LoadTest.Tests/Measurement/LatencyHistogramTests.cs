using TailDb.LoadTest.Measurement;

namespace TailDb.LoadTest.Tests.Measurement;

public class LatencyHistogramTests
{
    private const long Millisecond = 1_000_000;
    private const long Second = 1_000_000_000;

    // HdrHistogram's README example, as DESIGN §5 states it: 10,000 samples of 1 ms taken every
    // 10 ms, then one 100 s stall, recorded with an expected interval of 10 ms.
    private static LatencyHistogram StalledTester()
    {
        var histogram = new LatencyHistogram();
        for (int i = 0; i < 10_000; i++)
        {
            histogram.RecordWithExpectedInterval(1 * Millisecond, 10 * Millisecond);
        }

        histogram.RecordWithExpectedInterval(100 * Second, 10 * Millisecond);
        return histogram;
    }

    [Fact]
    public void ExpectedIntervalCorrectionReproducesTheHdrHistogramReadmeExample()
    {
        LatencyHistogram histogram = StalledTester();

        Assert.Equal(20_000, histogram.TotalCount);
        Assert.InRange(histogram.ValueAtPercentile(50), 1 * Millisecond, 1 * Millisecond * 1001 / 1000);
        Assert.InRange(histogram.ValueAtPercentile(99), 97.9 * Second, 98.1 * Second);
        Assert.Equal(100 * Second, histogram.Max);
    }

    [Fact]
    public void WithoutCorrectionTheStallHidesBeyondP99()
    {
        var histogram = new LatencyHistogram();
        for (int i = 0; i < 10_000; i++)
        {
            histogram.Record(1 * Millisecond);
        }

        histogram.Record(100 * Second);

        // The omission the correction exists for: one stall of 100 s, and p99.99 still says 1 ms.
        Assert.InRange(histogram.ValueAtPercentile(99), 1 * Millisecond, 1 * Millisecond * 1001 / 1000);
        Assert.InRange(histogram.ValueAtPercentile(99.99), 1 * Millisecond, 1 * Millisecond * 1001 / 1000);
        Assert.Equal(100 * Second, histogram.ValueAtPercentile(100));
    }

    [Theory]
    [InlineData(1L)]
    [InlineData(999L)]
    [InlineData(2_047L)]
    [InlineData(123_456L)]
    [InlineData(987_654_321L)]
    [InlineData(3_599_999_999_999L)]
    public void KeepsThreeSignificantDigits(long value)
    {
        var histogram = new LatencyHistogram();
        histogram.Record(value);
        histogram.Record(value * 2 > LatencyHistogram.DefaultHighestTrackableValue ? value : value * 2);

        long p50 = histogram.ValueAtPercentile(50);
        Assert.InRange(p50, value, value + Math.Max(1, value / 1000));
    }

    [Fact]
    public void PercentilesWalkTheDistributionInOrder()
    {
        var histogram = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++)
        {
            histogram.Record(v * 1000);
        }

        Assert.InRange(histogram.ValueAtPercentile(50), 50_000_000, 50_050_000);
        Assert.InRange(histogram.ValueAtPercentile(90), 90_000_000, 90_090_000);
        Assert.InRange(histogram.ValueAtPercentile(99.9), 99_900_000, 99_999_000);
        Assert.Equal(1000, histogram.Min);
        Assert.Equal(100_000_000, histogram.Max);
    }

    [Fact]
    public void AddMergesCountsAndExtremes()
    {
        var a = new LatencyHistogram();
        var b = new LatencyHistogram();
        for (int i = 0; i < 99; i++)
        {
            a.Record(10_000);
        }

        b.Record(5 * Second);

        a.Add(b);

        Assert.Equal(100, a.TotalCount);
        Assert.Equal(5 * Second, a.Max);
        Assert.InRange(a.ValueAtPercentile(99), 10_000, 10_010);
        Assert.InRange(a.ValueAtPercentile(99.5), 5 * Second - (5 * Second / 1000), 5 * Second);
    }

    [Fact]
    public void ValuesBeyondTheRangeCountAtTheTopButKeepTheExactMax()
    {
        var histogram = new LatencyHistogram(highestTrackableValue: 1_000_000);
        histogram.Record(5_000_000);
        histogram.Record(-3);

        Assert.Equal(2, histogram.TotalCount);
        Assert.Equal(5_000_000, histogram.Max);
        Assert.Equal(0, histogram.Min);
    }

    [Fact]
    public void EmptyHistogramReportsZero()
    {
        var histogram = new LatencyHistogram();
        Assert.Equal(0, histogram.ValueAtPercentile(99));
        Assert.Equal(0, histogram.Max);
    }
}
