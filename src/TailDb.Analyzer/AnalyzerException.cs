using TailDb.Cli;

namespace TailDb.Analyzer;

/// <summary>
/// The one user-facing failure: a bad flag, a bad file, a platform limit. The CLI prints its
/// message as one line and exits with its code; anything else is a bug and prints in full.
/// </summary>
internal sealed class AnalyzerException : UserFacingException<ExitCode>
{
    public AnalyzerException(ExitCode exitCode, string message, Exception? innerException = null)
        : base(exitCode, message, innerException)
    {
    }
}
