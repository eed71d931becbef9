namespace TailDb.Benchmarks.Compare;

/// <summary>An expected failure (bad path, not BenchmarkDotNet's full JSON, ...): printed as one line.</summary>
public sealed class CompareException : Exception
{
    public CompareException(string message)
        : base(message)
    {
    }

    public CompareException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public CompareException()
    {
    }
}
