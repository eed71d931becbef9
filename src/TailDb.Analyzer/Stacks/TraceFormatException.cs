namespace TailDb.Analyzer.Stacks;

/// <summary>
/// The trace file is not a readable .nettrace (truncated, corrupt, or another format). The
/// message is one line that names the file and where reading stopped, so the CLI can print it
/// as is and exit non-zero.
/// </summary>
public sealed class TraceFormatException : Exception
{
    public TraceFormatException()
    {
    }

    public TraceFormatException(string message)
        : base(message)
    {
    }

    public TraceFormatException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
