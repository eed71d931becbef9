namespace TailDb.LoadTest.Workloads;

/// <summary>
/// Zipf-distributed ranks in [0, n) with skew θ in (0, 1), by Gray et al., "Quickly generating
/// billion-record synthetic databases" (the generator YCSB uses): O(n) set-up, O(1) per draw.
/// Rank 0 is the hottest key.
/// </summary>
public sealed class ZipfGenerator
{
    private readonly int _n;
    private readonly double _theta;
    private readonly double _alpha;
    private readonly double _zetan;
    private readonly double _eta;
    private readonly double _halfPowTheta;

    public ZipfGenerator(int n, double theta)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(n, 1);
        if (!(theta > 0 && theta < 1))
        {
            throw new ArgumentOutOfRangeException(nameof(theta), theta, "θ must be in (0, 1)");
        }

        _n = n;
        _theta = theta;
        _alpha = 1 / (1 - theta);
        _zetan = Zeta(n, theta);
        double zeta2 = Zeta(2, theta);
        _halfPowTheta = Math.Pow(0.5, theta);
        _eta = n == 1 ? 0 : (1 - Math.Pow(2.0 / n, 1 - theta)) / (1 - (zeta2 / _zetan));
    }

    public int Next(Random random)
    {
        double u = random.NextDouble();
        double uz = u * _zetan;
        if (uz < 1 || _n == 1)
        {
            return 0;
        }

        if (uz < 1 + _halfPowTheta)
        {
            return 1;
        }

        int rank = (int)(_n * Math.Pow((_eta * u) - _eta + 1, _alpha));
        return Math.Clamp(rank, 0, _n - 1);
    }

    private static double Zeta(int n, double theta)
    {
        double sum = 0;
        for (int i = 1; i <= n; i++)
        {
            sum += 1 / Math.Pow(i, theta);
        }

        return sum;
    }

    public override string ToString() => $"zipf(n={_n}, θ={_theta})";
}
