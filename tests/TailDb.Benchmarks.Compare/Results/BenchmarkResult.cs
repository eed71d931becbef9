namespace TailDb.Benchmarks.Compare.Results;

/// <summary>One benchmark case of a BenchmarkDotNet run, as the comparison needs it.</summary>
/// <param name="Id">BenchmarkDotNet's FullName (namespace, type, method and parameters): the join key.</param>
/// <param name="DisplayName">Type.Method with its parameters, for the table.</param>
/// <param name="NanosecondsPerOperation">The raw per-iteration measurements of the Result stage
/// (Actual when no Result was exported), each divided by the iteration's operation count.</param>
/// <param name="AllocatedBytesPerOperation">MemoryDiagnoser's figure; null when it did not run.</param>
/// <param name="BaselineId">FullName of the baseline of this benchmark's category in the same run
/// (itself for a baseline), from the suite's *-report-baselines.json; null when unknown.</param>
/// <param name="AllocationNoiseBytes">Bytes per operation the benchmark declares its allocations
/// vary by between identical runs (timing-dependent batching), from the same file; 0 when none.</param>
/// <param name="DriftsWith">Raw baselines' methods (FullName without parameters) outside its category
/// whose machine cost it pays too, from the same file; empty when none.</param>
public sealed record BenchmarkResult(
    string Id,
    string DisplayName,
    IReadOnlyList<double> NanosecondsPerOperation,
    long? AllocatedBytesPerOperation,
    string? BaselineId = null,
    long AllocationNoiseBytes = 0,
    IReadOnlyList<string>? DriftsWith = null)
{
    public bool IsBaseline => BaselineId == Id;

    /// <summary>The median of each benchmark process's measurements (BenchmarkDotNet's launches of the
    /// case, and a row's rounds, <see cref="ProcessRounds"/>), in the order they ran; one median of
    /// every measurement when the processes are not known.</summary>
    public IReadOnlyList<double> ProcessMedians
    {
        get => _processMedians ?? [MedianNanoseconds];
        init => _processMedians = value;
    }

    private readonly IReadOnlyList<double>? _processMedians;

    /// <summary>The fastest process's median: the row on the machine's best state during the run.</summary>
    public double FastestProcessNanoseconds => ProcessMedians.Count == 0 ? double.NaN : ProcessMedians.Min();

    public double MedianNanoseconds => Median(NanosecondsPerOperation);

    internal static double Median(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return double.NaN;
        }

        var sorted = values.Order().ToArray();
        var middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
