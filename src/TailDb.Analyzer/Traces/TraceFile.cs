using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Sources.Etw;

namespace TailDb.Analyzer.Traces;

internal enum TraceKind
{
    NetTrace,

    /// <summary>An ETW trace, .etl or PerfView's .etl.zip, read by the managed reader on every OS (Sources/Etw).</summary>
    Etl,
}

/// <summary>
/// Checks a trace path before any parser sees it, so a wrong path or a wrong kind of file ends in
/// one line and a distinct exit code instead of a parser's stack trace.
/// </summary>
internal static class TraceFile
{
    private static readonly byte[] s_netTraceMagic = "Nettrace"u8.ToArray();

    public static TraceKind Check(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (Directory.Exists(path))
        {
            throw new AnalyzerException(ExitCode.BadTrace, $"{path} is a directory, not a trace file");
        }

        if (!File.Exists(path))
        {
            throw new AnalyzerException(ExitCode.BadTrace, $"{path}: no such file");
        }

        // The content decides, not the name: a .nettrace saved as .etl (a Windows habit) is read as
        // what it is; only a file without the nettrace magic and named .etl or .etl.zip is taken for ETW.
        Span<byte> head = stackalloc byte[8];
        var read = ReadHead(path, head);
        if (read == 0)
        {
            throw new AnalyzerException(ExitCode.BadTrace, $"{path} is empty");
        }

        if (read == head.Length && head.SequenceEqual(s_netTraceMagic))
        {
            return TraceKind.NetTrace;
        }

        if (path.EndsWith(".etl", StringComparison.OrdinalIgnoreCase) || path.EndsWith(".etl.zip", StringComparison.OrdinalIgnoreCase))
        {
            return TraceKind.Etl;
        }

        throw new AnalyzerException(ExitCode.BadTrace, $"{path} is not a .nettrace file (it does not start with the 'Nettrace' magic) nor named .etl or .etl.zip");
    }

    /// <summary>
    /// Opens the trace for one streaming pass. Callers have run <see cref="Check"/>. One ETW reader on
    /// every OS, Windows included: one path keeps reports the same wherever they are made (docs/etl.md).
    /// </summary>
    /// <param name="etwProcess">In an ETW trace, the process whose CLR and EventSource events are raised; null: all.</param>
    public static TraceEventDispatcher Open(string path, TraceKind kind, int? etwProcess = null) =>
        Guard(path, () => kind == TraceKind.Etl ? new EtwEventSource(path) { ProcessFilter = etwProcess } : (TraceEventDispatcher)new EventPipeEventSource(path));

    /// <summary>Runs a parser step; a damaged file becomes a one-line bad-trace error.</summary>
    public static T Guard<T>(string path, Func<T> step)
    {
        ArgumentNullException.ThrowIfNull(step);
        try
        {
            return step();
        }
        catch (Exception e) when (TracePass.IsParserFailure(e))
        {
            throw new AnalyzerException(ExitCode.BadTrace, $"{path} is not a readable trace: {TracePass.OneLine(e)}", e);
        }
    }


    private static int ReadHead(string path, Span<byte> head)
    {
        try
        {
            using var stream = File.OpenRead(path);
            return stream.ReadAtLeast(head, head.Length, throwOnEndOfStream: false);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new AnalyzerException(ExitCode.BadTrace, $"{path}: cannot read: {e.Message}", e);
        }
    }
}
