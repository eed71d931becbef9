namespace TailDb.LoadTest;

/// <summary>
/// An expected failure (bad input, a worker that crashed, a GC mode that did not take effect):
/// printed as one line on stderr, without a stack trace, and mapped to its exit code.
/// </summary>
public sealed class LoadTestException : Exception
{
    public LoadTestException(ExitCode exitCode, string message)
        : base(message)
    {
        ExitCode = exitCode;
    }

    public LoadTestException(ExitCode exitCode, string message, Exception innerException)
        : base(message, innerException)
    {
        ExitCode = exitCode;
    }

    public ExitCode ExitCode { get; }
}
