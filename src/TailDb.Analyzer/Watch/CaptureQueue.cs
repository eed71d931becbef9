using System.Globalization;
using System.Threading.Channels;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Watch;

/// <summary>How one capture ended.</summary>
/// <param name="RundownProblem">Why the capture holds no rundown (its ReadyToRun frames and those jitted before an attach stay unresolved); null when it does.</param>
internal sealed record CaptureResult(Trigger Trigger, string Path, long Bytes, string Verdict, bool Written, string? RundownProblem = null)
{
    /// <summary>With --sampler perf: the perf file beside the capture (perf's ring dumped when the capture was written).</summary>
    public PerfRecording? Perf { get; init; }

    /// <summary>With --sampler perf: why the capture has no perf file (the capture itself is whole).</summary>
    public string? PerfProblem { get; init; }
}

/// <summary>
/// Writes captures and their reports off the session's reader thread, in trigger order, in two
/// stages: the file first (a snapshot holds the window's blocks alive, past the ring's eviction, only
/// until its file is written), then its report in a child process (<see cref="ReportChild"/>), one at
/// a time. A report waiting for the one before holds a path, not blocks. <see cref="CompleteAsync"/>
/// finishes every capture already handed over (the end of a watch never leaves one half-written: a
/// file is whole under its name, or absent). With perf as the sampler, perf's ring is dumped as the
/// capture is taken, before its file is written (the ring moves on meanwhile), and the dump becomes
/// the capture's perf file before its report runs, which reads it.
/// </summary>
internal sealed class CaptureQueue
{
    private readonly Channel<(Trigger Trigger, RingSnapshot Snapshot, IReadOnlyList<KeptMethodLoad> Loads, int ProcessId)> _writes =
        Channel.CreateUnbounded<(Trigger, RingSnapshot, IReadOnlyList<KeptMethodLoad>, int)>(new UnboundedChannelOptions { SingleReader = true });

    private readonly Channel<(CaptureResult Written, Task<PerfRecording>? Perf)> _reports =
        Channel.CreateUnbounded<(CaptureResult, Task<PerfRecording>?)>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
    private readonly PerfRecorder? _perf;
    private readonly string _directory;
    private readonly RequestSelection _selection;
    private readonly TimeSpan _reportTimeout;
    private readonly Action<CaptureResult> _done;
    private readonly Task _writer;
    private readonly Task _reporter;
    private readonly List<CaptureResult> _results = [];

    /// <summary>A rundown of a large app (tens of thousands of methods) takes well under a second; past this the capture goes without.</summary>
    private static readonly TimeSpan RundownTimeout = TimeSpan.FromSeconds(15);

    /// <summary>perf writes a ring of tens of MiB in well under a second; its conversion may take four times this.</summary>
    private static readonly TimeSpan PerfTimeout = TimeSpan.FromSeconds(30);

    /// <param name="perf">perf as a flight recorder (--sampler perf), dumped for every capture; null otherwise.</param>
    public CaptureQueue(string directory, RequestSelection selection, TimeSpan reportTimeout, Action<CaptureResult> done, PerfRecorder? perf = null)
    {
        _perf = perf;
        _directory = directory;
        _selection = selection;
        _reportTimeout = reportTimeout;
        _done = done;
        _writer = Task.Run(WriteAllAsync);
        _reporter = Task.Run(ReportAllAsync);
    }

    public IReadOnlyList<CaptureResult> Results
    {
        get
        {
            lock (_results)
            {
                return [.. _results];
            }
        }
    }

    /// <summary>A capture of <paramref name="processId"/>'s session (0: no process to ask for a rundown).</summary>
    public void Enqueue(Trigger trigger, RingSnapshot snapshot, IReadOnlyList<KeptMethodLoad> loads, int processId) =>
        _writes.Writer.TryWrite((trigger, snapshot, loads, processId));

    public async Task CompleteAsync()
    {
        _writes.Writer.TryComplete();
        await _writer.ConfigureAwait(false);
        await _reporter.ConfigureAwait(false);
    }

    private async Task WriteAllAsync()
    {
        try
        {
            while (await _writes.Reader.WaitToReadAsync().ConfigureAwait(false))
            {
                WriteWaiting();
            }
        }
        finally
        {
            _reports.Writer.TryComplete();
        }
    }

    /// <summary>
    /// Synchronous, so no snapshot becomes a field of the async state machine: each is released as
    /// soon as its file is written, not when the next capture comes.
    /// </summary>
    private void WriteWaiting()
    {
        while (_writes.Reader.TryRead(out var job))
        {
            var path = NameFor(job.Trigger);
            // The signal goes out here, synchronously: perf's ring keeps moving while the rundown and the file are made.
            var perf = _perf is not null && job.ProcessId > 0 ? _perf.DumpAsync(path, job.ProcessId, PerfTimeout) : null;
            var rundown = _perf is not null ? RundownMethods.NotNeeded
                : job.ProcessId > 0 ? RundownRequest.Collect(job.ProcessId, RundownTimeout)
                : RundownMethods.None;
            _reports.Writer.TryWrite((Write(path, job.Trigger, job.Snapshot, job.Loads, rundown), perf));
        }
    }

    private async Task ReportAllAsync()
    {
        await foreach (var (capture, perf) in _reports.Reader.ReadAllAsync().ConfigureAwait(false))
        {
            var written = perf is null ? capture : await WithPerfAsync(capture, perf).ConfigureAwait(false);
            var result = written.Written
                ? written with { Verdict = await ReportChild.RunAsync(written.Path, written.Trigger, _selection, _reportTimeout).ConfigureAwait(false) }
                : written;
            lock (_results)
            {
                _results.Add(result);
            }

            _done(result);
        }
    }

    /// <summary>
    /// The capture's perf file once perf dumped and it was converted; a dump that failed leaves the
    /// capture as it is, saying why it has none. A capture whose own file failed keeps no perf file.
    /// </summary>
    private static async Task<CaptureResult> WithPerfAsync(CaptureResult capture, Task<PerfRecording> perf)
    {
        try
        {
            var recording = await perf.ConfigureAwait(false);
            if (!capture.Written)
            {
                File.Delete(recording.Path);
                return capture;
            }

            return capture with { Perf = recording };
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or UnauthorizedAccessException)
        {
            return capture with { PerfProblem = e.Message };
        }
    }

    /// <summary>The capture's name, its directory made: perf's file may be written beside it before the capture's own.</summary>
    private string NameFor(Trigger trigger)
    {
        try
        {
            Directory.CreateDirectory(_directory);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Write says why.
        }

        var stamp = DateTime.UtcNow.ToString("yyyyMMdd'T'HHmmss.fff", CultureInfo.InvariantCulture);
        return Path.Combine(_directory, $"{stamp}-{Sanitize(trigger.Activity)}.nettrace");
    }

    /// <summary>The capture's file; its verdict is filled in by the report.</summary>
    private CaptureResult Write(string path, Trigger trigger, RingSnapshot snapshot, IReadOnlyList<KeptMethodLoad> loads, RundownMethods rundown)
    {
        try
        {
            Directory.CreateDirectory(_directory);
            return new CaptureResult(trigger, path, CaptureWriter.Write(path, snapshot, loads, rundown), "", true, rundown.Problem);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return new CaptureResult(trigger, path, 0, $"not written: {e.Message}", false);
        }
    }

    private static string Sanitize(string name)
    {
        var chars = name.ToCharArray();
        for (var i = 0; i < chars.Length; i++)
        {
            if (!char.IsAsciiLetterOrDigit(chars[i]))
            {
                chars[i] = '_';
            }
        }

        return new string(chars);
    }
}
