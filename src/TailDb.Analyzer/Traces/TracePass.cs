using System.Runtime.Serialization;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.Etw;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Traces;

/// <param name="Truncation">Why parsing stopped before the end of the file, or null if it did not.</param>
/// <param name="Process">Which process of a machine-wide (ETW) trace was analyzed and why; null for a .nettrace.</param>
/// <param name="StartStopActivities">Every Start/Stop activity of a machine-wide trace, any process; null when not taken.</param>
/// <param name="NotRead">What the ETW reader met and did not raise, or null.</param>
internal sealed record TraceFacts(
    string Path, long Bytes, TraceKind Kind, double DurationMSec, long EventCount, int EventsLost, string? Truncation, DateTime? SessionStart,
    string? Process = null, IReadOnlyList<string>? StartStopActivities = null, string? NotRead = null, int? ProcessId = null)
{
    /// <summary>
    /// The error for something this trace lacks (a phase, any request). A trace cut short says so
    /// whatever else is missing, and exits as truncated: the cut is the likely reason (a load test's
    /// trace cut at 3 MB marks only its fill phase).
    /// </summary>
    public AnalyzerException Lacking(ExitCode code, string message) => Truncation is null
        ? new AnalyzerException(code, message)
        : new AnalyzerException(ExitCode.TruncatedTrace, $"{message} (a truncated trace, which may be why: {Truncation})");
}

/// <summary>
/// The one streaming pass over a trace: every computer subscribes, TraceEvent parses each event
/// once. Parser failures on a damaged file become either a truncation note (events were read, the
/// report covers them) or a one-line <see cref="AnalyzerException"/>; our own bugs still surface.
/// </summary>
internal static class TracePass
{
    /// <param name="framingChecked">The caller already read the whole file through the stack reader, which
    /// checks the same framing: the walk is skipped.</param>
    public static TraceFacts Run(string path, IReadOnlyList<ITraceComputer> computers, bool framingChecked = false, RequestSelection? selection = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(computers);
        var kind = TraceFile.Check(path);
        var bytes = new FileInfo(path).Length;
        var cutShort = kind == TraceKind.NetTrace && !framingChecked ? TraceStructure.Check(path) : null;
        // A cut before anything was read is the cut's only once the stream header is whole: a file
        // of the magic and a few bytes shows nothing of a recording, and stays a bad trace.
        var cutBeforeEvents = bytes > NetTraceFormat.StreamHeaderBytes ? cutShort : null;
        var process = selection?.Process ?? ProcessChoice.Default;
        EtwProcessCensus? census = null;
        int? processId = null;
        string? processNote = null;
        if (kind == TraceKind.Etl)
        {
            // A machine-wide trace: count each process's requests and GCs first, then read the chosen one.
            census = TraceFile.Guard(path, () => EtwProcessCensus.Take(path, selection ?? RequestSelection.Default));
            (processId, processNote) = process.Resolve(census, path);
        }
        else if (!process.IsDefault)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"{path}: --pid/--process choose a process of a machine-wide ETW trace; a .nettrace holds one process");
        }

        using var source = OpenCutShort(path, kind, processId, cutBeforeEvents);
        foreach (var computer in computers)
        {
            computer.Attach(source);
        }

        long events = 0;
        var lastMSec = 0.0;
        source.AllEvents += data =>
        {
            events++;
            lastMSec = data.TimeStampRelativeMSec;
            if ((events & 0xFFFF) == 0 && cancellationToken.IsCancellationRequested)
            {
                source.StopProcessing();
            }
        };

        string? truncation = null;
        try
        {
            source.Process();
        }
        catch (Exception e) when (IsParserFailure(e))
        {
            if (events == 0)
            {
                throw cutBeforeEvents is not null
                    ? NothingBeforeTheCut(path, cutBeforeEvents, e)
                    : new AnalyzerException(ExitCode.BadTrace, $"{path} is not a readable trace: {OneLine(e)}", e);
            }

            // The framing walk knows the byte where the file was cut; TraceEvent only that it ran out.
            truncation = cutShort is not null
                ? $"{cutShort}; the {events:N0} events before it (up to {lastMSec:F1} ms) were analyzed"
                : $"parsing stopped after {events:N0} events at {lastMSec:F1} ms: {OneLine(e)}";
        }

        truncation ??= cutShort ?? (source as EtwEventSource)?.Truncation;
        cancellationToken.ThrowIfCancellationRequested();
        var duration = events > 0 ? Math.Max(lastMSec, SafeSessionEnd(source)) : 0;
        foreach (var computer in computers)
        {
            computer.Complete(duration);
        }

        var lost = source is EventPipeEventSource pipe ? pipe.EventsLost : source.EventsLost;
        DateTime? start = events > 0 ? source.SessionStartTime : null;
        return new TraceFacts(path, bytes, kind, duration, events, lost, truncation, start,
            processNote, census?.StartStopActivities, (source as EtwEventSource)?.Counts.Describe(), processId);
    }

    /// <summary>
    /// Opens the trace; when the framing walk found it cut short, a failure to open is the cut's
    /// (TraceEvent reads the first block in its constructor, so a file cut inside that block fails
    /// there), not a bad trace.
    /// </summary>
    private static TraceEventDispatcher OpenCutShort(string path, TraceKind kind, int? processId, string? cutShort)
    {
        try
        {
            return TraceFile.Open(path, kind, processId);
        }
        catch (AnalyzerException e) when (cutShort is not null && e.ExitCode == ExitCode.BadTrace)
        {
            throw NothingBeforeTheCut(path, cutShort, e.InnerException ?? e);
        }
    }

    private static AnalyzerException NothingBeforeTheCut(string path, string cutShort, Exception parserFailure) =>
        new(ExitCode.TruncatedTrace, $"{path}: {cutShort}; no event before it could be read (TraceEvent: {OneLine(parserFailure)})", parserFailure);

    /// <summary>
    /// True when the exception came out of the parser (a damaged file), false when our own code threw
    /// (a bug, which must print in full). TraceEvent throws many types on bad bytes.
    /// </summary>
    public static bool IsParserFailure(Exception e)
    {
        ArgumentNullException.ThrowIfNull(e);
        if (e is AnalyzerException or OperationCanceledException)
        {
            return false;
        }

        // The ETW reader's one error: bytes that do not fit the format, at a named offset.
        if (e is EtlFormatException)
        {
            return true;
        }

        // TraceEvent reports a damaged payload with a bare System.Exception ("Reading past end of event"),
        // and its small getters are inlined into our callbacks, so no frame of its own may be left. Our
        // code never throws a bare Exception (CA2201 is an error here).
        if (e.GetType() == typeof(Exception))
        {
            return true;
        }

        // Whose code threw: the innermost frame that is either TraceEvent's or ours decides. TraceEvent
        // throws from payload accessors our callbacks call (a damaged event), so a frame of ours
        // further out does not make it our bug; a BCL throw helper called by our code does.
        foreach (var frame in new System.Diagnostics.StackTrace(e).GetFrames())
        {
            var ns = frame.GetMethod()?.DeclaringType?.Namespace ?? "";
            if (ns.StartsWith("Microsoft.Diagnostics", StringComparison.Ordinal))
            {
                break;
            }

            if (ns.StartsWith("TailDb", StringComparison.Ordinal) && ns != typeof(TracePass).Namespace)
            {
                return false;
            }
        }

        // An allocation that failed inside TraceEvent's own metadata parsing is the file lying about a
        // size (a flipped field count asks for gigabytes: found by the byte-mutation tests), not memory
        // running out under our code: the method that threw is TraceEvent's, not a callback of ours.
        if (e is OutOfMemoryException && e.TargetSite?.DeclaringType?.Namespace?.StartsWith("Microsoft.Diagnostics.Tracing", StringComparison.Ordinal) == true)
        {
            return true;
        }

        // Not NullReference, InvalidCast or other OutOfMemory: from the parser they are as likely our bug
        // (a callback handed a wrong type or null) as bad bytes, and a bug must not read as bad input.
        return e is SerializationException or EndOfStreamException or IOException or InvalidOperationException or FormatException
            or ArgumentException or IndexOutOfRangeException or OverflowException or NotSupportedException or KeyNotFoundException
            or ApplicationException
            || e.GetType().Namespace?.StartsWith("Microsoft.Diagnostics", StringComparison.Ordinal) == true;
    }

    public static string OneLine(Exception e)
    {
        ArgumentNullException.ThrowIfNull(e);
        var message = e.Message.ReplaceLineEndings(" ").Trim();
        if (message.Length > 200)
        {
            message = string.Concat(message.AsSpan(0, 200), "...");
        }

        return $"{e.GetType().Name}: {message}";
    }

    private static double SafeSessionEnd(TraceEventDispatcher source)
    {
        try
        {
            var end = source.SessionEndTimeRelativeMSec;
            return double.IsFinite(end) && end < 1e12 ? end : 0;
        }
        catch (Exception e) when (IsParserFailure(e))
        {
            return 0;
        }
    }
}
