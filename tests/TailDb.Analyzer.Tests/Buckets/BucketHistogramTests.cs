using TailDb.Analyzer.Buckets;

namespace TailDb.Analyzer.Tests.Buckets;

/// <summary>
/// Seed 000's table: latencies 70·Beta(2,5), p99 from exponential buckets against the exact value.
/// From the distribution itself (bucket weights = its probability mass) the estimates are exact
/// figures; from 100,000 seeded draws they carry sampling error on top.
/// </summary>
public sealed class BucketHistogramTests
{
    private const double Scale = 70;

    [Theory]
    [InlineData(2.0, 61.94)]
    [InlineData(1.4, 53.89)]
    [InlineData(1.2, 51.20)]
    public void P99OfSeventyTimesBetaTwoFiveMatchesSeedZeroTable(double growth, double expected)
    {
        var scheme = BucketScheme.Exponential(growth, Scale);
        var weights = new double[scheme.Bounds.Length + 1];
        for (var i = 0; i < scheme.Bounds.Length; i++)
        {
            weights[i] = Cdf(scheme.Bounds[i]) - (i == 0 ? 0 : Cdf(scheme.Bounds[i - 1]));
        }

        var estimate = new BucketHistogram(scheme, weights).Estimate(99);
        Assert.InRange(estimate, expected * 0.995, expected * 1.005);
    }

    [Fact]
    public void AWholeRankIsTakenFromItsOwnBucketThoughPTimesNIsAHairPastIt()
    {
        // 99.9 / 100 x 1,000 is 999.0000000000001 in doubles; the 999th duration is the last in (1, 2].
        var scheme = new BucketScheme("test", [1, 2, 3, 4]);

        var estimate = new BucketHistogram(scheme, [0, 999, 0, 1, 0]).Estimate(99.9);

        Assert.Equal(2.0, estimate);
    }

    [Fact]
    public void ExactP99OfSeventyTimesBetaTwoFiveIs49Point40()
    {
        Assert.InRange(Quantile(0.99), 49.40 * 0.995, 49.40 * 1.005);
    }

    [Theory]
    [InlineData(2.0)]
    [InlineData(1.4)]
    [InlineData(1.2)]
    [InlineData(1.1)]
    public void HundredThousandSeededDrawsEstimateWithinSamplingErrorOfTheDistribution(double growth)
    {
        var random = new Random(20261123);
        var draws = new float[100_000];
        for (var i = 0; i < draws.Length; i++)
        {
            draws[i] = (float)(Scale * Beta25(random));
        }

        var scheme = BucketScheme.Exponential(growth, Scale);
        var fromDraws = BucketHistogram.Of(scheme, draws).Estimate(99);
        var weights = new double[scheme.Bounds.Length + 1];
        for (var i = 0; i < scheme.Bounds.Length; i++)
        {
            weights[i] = Cdf(scheme.Bounds[i]) - (i == 0 ? 0 : Cdf(scheme.Bounds[i - 1]));
        }

        var fromDistribution = new BucketHistogram(scheme, weights).Estimate(99);
        // The 99th percentile's rank has standard deviation sqrt(n p (1-p)) ≈ 31 of 100,000; four of
        // them in probability, mapped through the density at p99 (≈ 0.0011/ms ⇒ about 1.1 ms), bound the miss.
        var sigmaMs = Math.Sqrt(0.99 * 0.01 / draws.Length) / Density(Quantile(0.99));
        Assert.InRange(fromDraws, fromDistribution - (4 * sigmaMs) - 0.05, fromDistribution + (4 * sigmaMs) + 0.05);
    }

    [Fact]
    public void OpenTelemetryOpenBucketReadsAsItsLowerBound()
    {
        var histogram = BucketHistogram.Of(BucketScheme.OpenTelemetryDefault, [20_000f, 30_000f]);
        Assert.Equal(10_000, histogram.Estimate(99));
    }

    // Beta(2,5) has the CDF Σ_{j=2..6} C(6,j) x^j (1-x)^(6-j) (integer parameters).
    private static double Cdf(double ms)
    {
        var x = Math.Clamp(ms / Scale, 0, 1);
        var sum = 0.0;
        for (var j = 2; j <= 6; j++)
        {
            sum += Choose(6, j) * Math.Pow(x, j) * Math.Pow(1 - x, 6 - j);
        }

        return sum;
    }

    private static double Density(double ms)
    {
        var x = ms / Scale;
        return 30 * x * Math.Pow(1 - x, 4) / Scale;
    }

    private static double Quantile(double p)
    {
        double lo = 0, hi = Scale;
        for (var i = 0; i < 100; i++)
        {
            var mid = (lo + hi) / 2;
            (lo, hi) = Cdf(mid) < p ? (mid, hi) : (lo, mid);
        }

        return lo;
    }

    private static double Choose(int n, int k) => k == 0 ? 1 : Choose(n - 1, k - 1) * n / k;

    // Beta(2,5) as Gamma(2)/(Gamma(2)+Gamma(5)); Gamma(k) of integer k is a sum of k exponentials.
    private static double Beta25(Random random)
    {
        var a = Gamma(random, 2);
        var b = Gamma(random, 5);
        return a / (a + b);
    }

    private static double Gamma(Random random, int shape)
    {
        var sum = 0.0;
        for (var i = 0; i < shape; i++)
        {
            sum -= Math.Log(1 - random.NextDouble());
        }

        return sum;
    }
}
