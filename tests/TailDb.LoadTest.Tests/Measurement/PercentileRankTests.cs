using HdrHistogram;
using TailDb.Analyzer.Attribution;

namespace TailDb.LoadTest.Tests.Measurement;

/// <summary>
/// The load test's percentiles come from HdrHistogram and the analyzer's from the sorted durations;
/// "the same tail" needs them to pick the same request. Values 1..N (N up to 2,000: three significant digits keep every integer below 2,048 exact) are exact in both, so any rank
/// difference shows as a different value.
/// </summary>
public sealed class PercentileRankTests
{
    [Fact]
    public void TheAnalyzerPicksTheRequestHdrHistogramPicksForEveryCountUpTo2000()
    {
        double[] percentiles = [50, 90, 99, 99.9, 99.99, 100];
        var histogram = new LongHistogram(1_000_000, 3);
        var sorted = new double[2000];
        for (int n = 1; n <= sorted.Length; n++)
        {
            histogram.RecordValue(n);
            sorted[n - 1] = n;
            double[] prefix = sorted[..n];
            foreach (double p in percentiles)
            {
                long expected = histogram.GetValueAtPercentile(p);
                double actual = Percentiles.At(prefix, p);
                Assert.True(expected == actual, $"N={n}, p{p}: HdrHistogram {expected}, analyzer {actual}");
            }
        }
    }

    [Fact]
    public void RankRoundsHalfUpWhereNearestRankWouldRoundUp()
    {
        // 0.99 x 5,960 = 5,900.4: HdrHistogram's request 5,900, where nearest rank (rounding up) takes 5,901.
        Assert.Equal(5_900, Percentiles.Rank(5_960, 99));
        Assert.Equal(5_901, Percentiles.Rank(5_961, 99));
        Assert.Equal(1, Percentiles.Rank(10, 1));
        Assert.Equal(1, Percentiles.Rank(1, 0));
    }
}
