using TailDb.Cli;

namespace TailDb.Server;

/// <summary>An expected failure at start-up: printed as one line on stderr and mapped to its exit code.</summary>
public sealed class ServerException : UserFacingException<ExitCode>
{
    public ServerException(ExitCode exitCode, string message)
        : base(exitCode, message, null)
    {
    }

    public ServerException(ExitCode exitCode, string message, Exception innerException)
        : base(exitCode, message, innerException)
    {
    }
}
