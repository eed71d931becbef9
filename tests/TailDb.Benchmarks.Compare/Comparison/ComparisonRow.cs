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
public sealed record ComparisonRow(
    string Name,
    BenchmarkResult? Baseline,
    BenchmarkResult? Current,
    TimeChange Time,
    double? TimeRatio,
    double? PValue,
    AllocationChange Allocation,
    bool TimeFails,
    bool AllocationFails)
{
    public bool Fails => TimeFails || AllocationFails;
}
