namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// The ETW reader's one error: the bytes at <see cref="FileOffset"/> of the .etl do not fit the
/// format (docs/etl.md). The trace pass turns it into a truncation note or a one-line bad-trace exit.
/// </summary>
internal sealed class EtlFormatException : FormatException
{
    public EtlFormatException()
    {
    }

    public EtlFormatException(string message)
        : base(message)
    {
    }

    public EtlFormatException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public EtlFormatException(long fileOffset, string message)
        : base($"at byte {fileOffset:N0} of the .etl: {message}")
    {
        FileOffset = fileOffset;
    }

    public long FileOffset { get; } = -1;
}
