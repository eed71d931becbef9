namespace TailDb.Cli;

/// <summary>
/// An expected failure the user can act on (a bad flag, a bad file, a platform limit): the CLI
/// boundary (<see cref="CommandLineBoundary"/>) prints its message as one line and exits with its
/// code. Each executable derives its one exception from it, over its own exit-code enum.
/// </summary>
public abstract class UserFacingException<TExitCode> : Exception
    where TExitCode : struct, Enum
{
    protected UserFacingException(TExitCode exitCode, string message, Exception? innerException)
        : base(message, innerException)
    {
        ExitCode = exitCode;
    }

    public TExitCode ExitCode { get; }
}
