using TailDb.Analyzer.Attribution;

namespace TailDb.Analyzer.Tests.Attribution;

public sealed class PercentilesTests
{
    [Fact]
    public void NearestRankOnExactValues()
    {
        var values = Enumerable.Range(1, 1000).Select(i => (double)i).ToArray();
        Assert.Equal(500, Percentiles.At(values, 50));
        Assert.Equal(990, Percentiles.At(values, 99));
        Assert.Equal(999, Percentiles.At(values, 99.9));
        Assert.Equal(1000, Percentiles.At(values, 100));
    }

    [Fact]
    public void ExactSortMatchesTheBeta25ReferenceWhereBucketsDoNot()
    {
        // docs/architecture.md, "Percentile figures": exact 70·Beta(2,5) has p50 18.51 and p99 49.40 (exponential buckets: 51.20 to 61.94).
        // Beta(2,5) as the 2nd smallest of 6 uniforms, seeded; 400k draws land within sampling error.
        var random = new Random(42);
        var values = new double[400_000];
        var u = new double[6];
        for (var i = 0; i < values.Length; i++)
        {
            for (var j = 0; j < u.Length; j++)
            {
                u[j] = random.NextDouble();
            }

            Array.Sort(u);
            values[i] = 70 * u[1];
        }

        Array.Sort(values);
        Assert.Equal(18.51, Percentiles.At(values, 50), 0.15);
        Assert.Equal(49.40, Percentiles.At(values, 99), 0.3);
    }

    [Fact]
    public void EmptyIsNaN() => Assert.True(double.IsNaN(Percentiles.At(Array.Empty<float>(), 99)));
}
