using TailDb.Cli;

namespace TailDb.LoadTest;

/// <summary>
/// An expected failure (bad input, a worker that crashed, a GC mode that did not take effect):
/// printed as one line on stderr, without a stack trace, and mapped to its exit code.
/// </summary>
public sealed class LoadTestException : UserFacingException<ExitCode>
{
    public LoadTestException(ExitCode exitCode, string message)
        : base(exitCode, message, null)
    {
    }

    public LoadTestException(ExitCode exitCode, string message, Exception innerException)
        : base(exitCode, message, innerException)
    {
    }
}
