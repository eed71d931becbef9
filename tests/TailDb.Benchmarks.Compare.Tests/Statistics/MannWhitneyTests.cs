using TailDb.Benchmarks.Compare.Statistics;

namespace TailDb.Benchmarks.Compare.Tests.Statistics;

public sealed class MannWhitneyTests
{
    private static readonly double[] Low = [1, 2, 3, 4, 5];
    private static readonly double[] High = [6, 7, 8, 9, 10];

    [Fact]
    public void FullySeparatedFiveAgainstFiveHasOneSidedPOfOneOverC10Choose5()
    {
        // Exactly one of the C(10,5) = 252 equally likely rank splits puts all five highest on one side.
        Assert.Equal(1.0 / 252, MannWhitney.PGreater(High, Low), 12);
    }

    [Fact]
    public void TwoSidedPDoublesTheOneSidedTailOfASymmetricDistribution()
    {
        Assert.Equal(2.0 / 252, MannWhitney.PTwoSided(High, Low), 12);
    }

    [Fact]
    public void TheOppositeDirectionIsNotSignificant()
    {
        Assert.True(MannWhitney.PGreater(Low, High) > 0.99);
    }

    [Fact]
    public void UCountsPairsWhereXIsAboveYWithTiesAsHalf()
    {
        // x=1 beats nothing; x=2 ties both 2s (0.5 + 0.5); x=3 beats both 2s: U = 0 + 1 + 2.
        Assert.Equal(3, MannWhitney.U([1, 2, 3], [2, 2, 4]));
        Assert.Equal(25, MannWhitney.U(High, Low));
    }

    [Fact]
    public void ThirtyAgainstThirtyMatchesTheExactPermutationDistribution()
    {
        var x = Enumerable.Range(1, 30).Select(i => (double)i).ToArray();
        var y = x.Select(v => v + 5.5).ToArray();
        // y_j beats x_i whenever i <= j + 5: U = sum over j of min(30, j + 5) = 600 of 900 pairs.
        Assert.Equal(600, MannWhitney.U(y, x));
        Assert.Equal(ExactUpperTail(30, 30, 600), MannWhitney.PGreater(y, x), 9);
        Assert.Equal(0.01316598015128969, MannWhitney.PGreater(y, x), 9);
    }

    [Fact]
    public void IdenticalSamplesAreNotSignificantEitherWay()
    {
        double[] same = [10, 11, 12, 13, 14, 15];
        Assert.True(MannWhitney.PGreater(same, same) > 0.4);
        Assert.True(MannWhitney.PTwoSided(same, same) > 0.9);
    }

    [Fact]
    public void FewerThanThreeValuesOnASideCannotBeTested()
    {
        Assert.False(MannWhitney.CanTest([1, 2], Low));
        Assert.True(MannWhitney.CanTest([1, 2, 3], Low));
        Assert.Throws<ArgumentException>(() => MannWhitney.PGreater([1, 2], Low));
    }

    /// <summary>Independent oracle: P(U >= u) by counting rank arrangements (no ties), the
    /// textbook recurrence f(n, m, u) = f(n-1, m, u-m) + f(n, m-1, u).</summary>
    private static double ExactUpperTail(int n, int m, int u)
    {
        var maxU = n * m;
        var counts = new long[n + 1, m + 1][];
        for (var i = 0; i <= n; i++)
        {
            for (var j = 0; j <= m; j++)
            {
                var row = new long[maxU + 1];
                if (i == 0 || j == 0)
                {
                    row[0] = 1;
                }
                else
                {
                    for (var k = 0; k <= i * j; k++)
                    {
                        row[k] = (k >= j ? counts[i - 1, j][k - j] : 0) + counts[i, j - 1][k];
                    }
                }

                counts[i, j] = row;
            }
        }

        long tail = 0, total = 0;
        for (var k = 0; k <= maxU; k++)
        {
            total += counts[n, m][k];
            if (k >= u)
            {
                tail += counts[n, m][k];
            }
        }

        return (double)tail / total;
    }
}
