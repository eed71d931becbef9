namespace TailDb.Benchmarks.Compare.Comparison;

/// <param name="Alpha">Significance level of each one-sided Mann-Whitney test.</param>
/// <param name="FailRatio">A significant slowdown fails only when now/baseline median reaches this,
/// also after dividing by the drift of its category's raw baseline between the two runs (which
/// runs no TailDb code, so its slowdown is the machine's): shared machines drift by tens of
/// percent, and by more than 2x while other work runs beside the suite.</param>
/// <param name="AllocationToleranceBytes">Bytes per operation an allocation may grow without failing.
/// Allocations are deterministic, so the default is 0: any increase fails.</param>
/// <param name="AllocationRelativeTolerance">Fraction of the baseline's bytes per operation an
/// allocation may grow without failing. MemoryDiagnoser counts every thread's allocations
/// (GC.GetTotalAllocatedBytes), so a benchmark whose one operation allocates hundreds of MB picks
/// up a few KB from the runtime's own background work (tiered JIT, thread pool, EventPipe): seen
/// here as 0.003% run to run on the same input. 0.1% absorbs that and nothing else: below 1,000
/// bytes per operation it allows no growth at all, so the hot paths keep the any-byte rule.</param>
public sealed record ComparisonOptions(
    double Alpha = 0.01,
    double FailRatio = 2.0,
    long AllocationToleranceBytes = 0,
    double AllocationRelativeTolerance = 0.001)
{
    /// <summary>Bytes per operation an allocation of <paramref name="baselineBytes"/> may grow and still pass.</summary>
    public long AllowedAllocationGrowth(long baselineBytes) =>
        Math.Max(AllocationToleranceBytes, (long)Math.Floor(baselineBytes * AllocationRelativeTolerance));
}
