namespace TailDb.Analyzer;

/// <summary>
/// The one user-facing failure: a bad flag, a bad file, a platform limit. The CLI prints its
/// message as one line and exits with its code; anything else is a bug and prints in full.
/// </summary>
internal sealed class AnalyzerException : Exception
{
    public AnalyzerException()
    {
    }

    public AnalyzerException(string message)
        : base(message)
    {
    }

    public AnalyzerException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public AnalyzerException(ExitCode exitCode, string message, Exception? innerException = null)
        : base(message, innerException)
    {
        ExitCode = exitCode;
    }

    public ExitCode ExitCode { get; } = ExitCode.UnexpectedError;
}
