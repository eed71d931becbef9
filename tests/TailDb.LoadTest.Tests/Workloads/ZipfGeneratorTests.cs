using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.Workloads;

public class ZipfGeneratorTests
{
    [Fact]
    public void HottestRanksFollowTheZipfLaw()
    {
        const int n = 10_000;
        const double theta = 0.99;
        var zipf = new ZipfGenerator(n, theta);
        var random = new Random(1);
        var counts = new int[n];
        const int draws = 500_000;
        for (int i = 0; i < draws; i++)
        {
            counts[zipf.Next(random)]++;
        }

        double zeta = Enumerable.Range(1, n).Sum(i => 1 / Math.Pow(i, theta));
        // P(rank k) = 1 / (k^θ · ζ(n)); the generator is exact for ranks 0 and 1.
        Assert.InRange(counts[0] / (double)draws, 0.97 / zeta, 1.03 / zeta);
        Assert.InRange(counts[1] / (double)draws, 0.95 / (Math.Pow(2, theta) * zeta), 1.05 / (Math.Pow(2, theta) * zeta));
        Assert.True(counts[0] > counts[10] && counts[10] > counts[1000]);
    }

    [Fact]
    public void PlanIsIdenticalForTheSameSeed()
    {
        var options = new WorkloadOptions { Keys = 1000, Rate = 1000, DurationSeconds = 1, WarmupSeconds = 0, Distribution = KeyDistribution.Zipf };
        var a = WorkloadPlan.Create(options);
        var b = WorkloadPlan.Create(options);
        var c = WorkloadPlan.Create(options with { Seed = 7 });

        Assert.Equal(a.Operations[1], b.Operations[1]);
        Assert.NotEqual(a.Operations[1], c.Operations[1]);
        Assert.Equal(a.Keys[999], b.Keys[999]);
        Assert.Equal(16, a.Keys[0].Length);
    }

    [Fact]
    public void PlanHonoursTheMix()
    {
        var options = new WorkloadOptions { Keys = 1000, Rate = null, ReadRatio = 0.7, DeleteFraction = 0.5, LargeEvery = 10 };
        var ops = WorkloadPlan.Create(options).Operations.SelectMany(o => o).ToList();

        double reads = ops.Count(o => o.Type == OperationType.Read) / (double)ops.Count;
        double deletes = ops.Count(o => o.Type == OperationType.Delete) / (double)ops.Count;
        int writes = ops.Count(o => o.Type == OperationType.Write);
        Assert.InRange(reads, 0.69, 0.71);
        Assert.InRange(deletes, 0.14, 0.16);
        Assert.InRange(ops.Count(o => o.Large), (writes / 10) - 2, (writes / 10) + 2);
    }
}
