namespace TailDb.Benchmarks.Compare;

/// <summary>What the comparison tells CI. A parse error of System.CommandLine also exits with 1.</summary>
public enum ExitCode
{
    /// <summary>Nothing allocates more than the baseline and nothing is significantly 2x slower.</summary>
    Success = 0,

    /// <summary>A flag, a path or a results file is unusable; printed as one line.</summary>
    BadInput = 1,

    /// <summary>At least one benchmark allocates more per operation, or is significantly slower past the fail ratio.</summary>
    Regression = 2,
}
