namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>What is wrong with a trace file, so callers decide by kind, never by message text.</summary>
public enum TraceFormatProblem
{
    /// <summary>The framing or a field is impossible: the file is damaged.</summary>
    Corrupt,

    /// <summary>The file ends early (the recording was cut short); what came before is sound.</summary>
    Truncated,

    /// <summary>A nettrace format version newer than the reader knows; TraceEvent may still read it.</summary>
    NewerFormat,

    /// <summary>The file does not start with the nettrace magic.</summary>
    NotNetTrace,

    /// <summary>The file cannot be opened, or TraceEvent refused it.</summary>
    Unreadable,
}

/// <summary>
/// The trace file is not a readable .nettrace (truncated, corrupt, or another format). The
/// message is one line that names the file and where reading stopped, so the CLI can print it
/// as is and exit non-zero; <see cref="Problem"/> says which.
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

    public TraceFormatException(TraceFormatProblem problem, string message, Exception? innerException = null)
        : base(message, innerException)
    {
        Problem = problem;
    }

    public TraceFormatProblem Problem { get; } = TraceFormatProblem.Corrupt;

    /// <summary>The one shape of a damaged-stream error: what was being read, the stream offset where it broke, why.</summary>
    internal static TraceFormatException Corrupt(string what, long streamOffset, string problem) =>
        new(TraceFormatProblem.Corrupt, $"corrupt {what} at byte {streamOffset}: {problem}");

    /// <summary>The stream ended inside <paramref name="what"/>, at <paramref name="length"/> bytes.</summary>
    internal static TraceFormatException Truncated(string what, long length) =>
        new(TraceFormatProblem.Truncated, $"the trace is truncated: it ends inside {what} at byte {length} (the recording was cut short)");
}
