namespace TailDb.Benchmarks.Compare.Comparison;

/// <param name="Alpha">Significance level of each one-sided Mann-Whitney test.</param>
/// <param name="FailRatio">A significant slowdown fails only when now/baseline median reaches this:
/// shared CI machines drift by tens of percent, a 2x change is a real regression.</param>
/// <param name="AllocationToleranceBytes">Bytes per operation an allocation may grow without failing.
/// Allocations are deterministic, so the default is 0: any increase fails.</param>
public sealed record ComparisonOptions(double Alpha = 0.01, double FailRatio = 2.0, long AllocationToleranceBytes = 0);
