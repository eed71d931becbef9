using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Comparison;

public enum TimeChange
{
    /// <summary>Neither one-sided test is significant.</summary>
    Same,
    Faster,
    Slower,

    /// <summary>Too few measurements on one side for the test.</summary>
    Untested,

    /// <summary>Present on one side only.</summary>
    NotCompared,
}

public enum AllocationChange
{
    Same,
    Less,
    More,

    /// <summary>MemoryDiagnoser missing on a side, or present on one side only.</summary>
    Unknown,
}

/// <summary>One benchmark's baseline against now. Either side is null when the benchmark is missing there.</summary>
/// <param name="MachineDrift">now/before median of this benchmark's category baseline (the raw
/// physical-limit benchmark of the same run); null when unknown or for the baseline itself.</param>
/// <param name="IsRawBaseline">The row is a category baseline: it runs no TailDb code, so its time
/// measures the machine and never fails (its allocations still do).</param>
public sealed record ComparisonRow(
    string Name,
    BenchmarkResult? Baseline,
    BenchmarkResult? Current,
    TimeChange Time,
    double? TimeRatio,
    double? PValue,
    AllocationChange Allocation,
    bool TimeFails,
    bool AllocationFails,
    double? MachineDrift = null,
    bool IsRawBaseline = false)
{
    /// <summary>The time ratio with the machine's drift divided out, when the drift is known.</summary>
    public double? CorrectedRatio => TimeRatio is { } r && MachineDrift is { } d && d > 0 ? r / d : null;

    public bool Fails => TimeFails || AllocationFails;
}
