using TailDb.LoadTest.NoGc;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.NoGc;

public class NoGcRegionTests
{
    private const long Mib = 1 << 20;

    [Fact]
    public void OpenLoopBudgetIsTheWarmupsBytesPerRequestTimesTheScheduledRequestsWithHeadroom()
    {
        var workload = new WorkloadOptions { Rate = 1000, DurationSeconds = 10 };

        // Warm-up: 2,000 requests allocated 40,000,000 bytes = 20,000 B per request.
        long budget = NoGcRegion.EstimateBudget(workload, 40_000_000, 2_000, TimeSpan.FromSeconds(2));

        Assert.Equal((long)(20_000.0 * 1000 * 10 * 1.5) + (64 * Mib), budget);
    }

    [Fact]
    public void ClosedLoopBudgetUsesTheWarmupsThroughput()
    {
        var workload = new WorkloadOptions { Rate = null, DurationSeconds = 5 };

        long budget = NoGcRegion.EstimateBudget(workload, 10_000_000, 10_000, TimeSpan.FromSeconds(1));

        Assert.Equal((long)(1_000.0 * 10_000 * 5 * 1.5) + (64 * Mib), budget);
    }

    [Fact]
    public void WithoutAWarmupTheBudgetComesFromTheWorkloadsSizes()
    {
        var workload = new WorkloadOptions { Rate = 100, DurationSeconds = 1, AppAllocBytes = 1000, ValueSize = 500 };

        long budget = NoGcRegion.EstimateBudget(workload, 0, 0, TimeSpan.Zero);

        Assert.Equal((long)((1000 + (2.0 * 500)) * 100 * 1 * 1.5) + (64 * Mib), budget);
    }
}
