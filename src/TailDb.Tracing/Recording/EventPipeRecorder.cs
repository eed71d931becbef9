using Microsoft.Diagnostics.NETCore.Client;

namespace TailDb.Tracing.Recording;

/// <summary>
/// Streams one EventPipe session of another process into a .nettrace file. Never parses in the
/// traced process: the bytes go straight to disk on a reader thread of their own (<see cref="StreamPump"/>).
/// </summary>
public sealed class EventPipeRecorder : IAsyncDisposable
{
    /// <summary>The name of the thread that reads the session (what perf and the analyzer see of the recorder).</summary>
    public const string ReaderThreadName = "EventPipe reader";

    private readonly EventPipeSession _session;
    private readonly Stream _sink;
    private readonly Task _copy;
    private bool _stopped;

    private EventPipeRecorder(EventPipeSession session, Stream sink)
    {
        _session = session;
        _sink = sink;
        _copy = StreamPump.Start(session.EventStream, sink, ReaderThreadName);
    }

    /// <summary>The file written; empty when the stream goes to a caller's sink (an in-memory ring).</summary>
    public string Path => _sink is FileStream file ? file.Name : "";

    /// <summary>Completes when the session's stream has ended (the target exited or the session stopped) and the sink has it all.</summary>
    public Task Completion => _copy;

    /// <summary>
    /// Attaches to a process that is already running (its diagnostic port is open as soon as its
    /// runtime is up) and starts the session. A child that should be recorded from its first
    /// instruction is started through <see cref="DiagnosticPortListener"/> instead.
    /// </summary>
    public static Task<EventPipeRecorder> AttachAsync(
        int processId, string outputPath, RecordingOptions options, CancellationToken cancellationToken = default) =>
        StartAsync(new DiagnosticsClient(processId), outputPath, options, cancellationToken);

    /// <summary>Attaches to a running process and streams its session into <paramref name="sink"/>.</summary>
    public static Task<EventPipeRecorder> AttachAsync(
        int processId, Stream sink, RecordingOptions options, CancellationToken cancellationToken = default) =>
        StartAsync(new DiagnosticsClient(processId), sink, options, cancellationToken);

    /// <summary>Starts the session through <paramref name="client"/> and streams it to <paramref name="outputPath"/>.</summary>
    public static async Task<EventPipeRecorder> StartAsync(
        DiagnosticsClient client, string outputPath, RecordingOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(options);
        var file = new FileStream(outputPath, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20, FileOptions.Asynchronous);
        try
        {
            return await StartAsync(client, (Stream)file, options, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await file.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// Starts the session and copies its raw .nettrace stream into <paramref name="sink"/> on a reader
    /// task of its own (a flight recorder's ring parses it as it arrives). The recorder disposes the sink.
    /// </summary>
    public static async Task<EventPipeRecorder> StartAsync(
        DiagnosticsClient client, Stream sink, RecordingOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(sink);
        ArgumentNullException.ThrowIfNull(options);
        {
            // Without event stacks the runtime skips a stack walk for every event it writes, which
            // is most of what a session costs the traced process per TailDb event; the sample
            // profiler's samples keep their stacks (the sampler walks each thread itself). That flag
            // needs the newer IPC command (.NET 9+), so the default keeps the one every runtime knows.
            EventPipeSession session = options.EventStacks
                ? await client.StartEventPipeSessionAsync(options.Providers, requestRundown: true, options.BufferMegabytes, cancellationToken).ConfigureAwait(false)
                : await client.StartEventPipeSessionAsync(
                    new EventPipeSessionConfiguration(options.Providers, options.BufferMegabytes, requestRundown: true, requestStackwalk: false),
                    cancellationToken).ConfigureAwait(false);
            return new EventPipeRecorder(session, sink);
        }
    }

    /// <summary>
    /// Stops the session (the runtime then writes the rundown: method names for code that ran
    /// before the session), drains the stream to its end and returns the file size in bytes.
    /// A process that already exited ends its stream by itself; that is not an error.
    /// </summary>
    public async Task<long> StopAsync(TimeSpan drainTimeout)
    {
        if (!_stopped && !_copy.IsCompleted)
        {
            _stopped = true;
            try
            {
                await _session.StopAsync(CancellationToken.None).WaitAsync(drainTimeout).ConfigureAwait(false);
            }
            catch (Exception e) when (e is ServerNotAvailableException or EndOfStreamException or IOException or TimeoutException)
            {
                // The target is gone; whatever it wrote is already in the stream.
            }
        }

        return await DrainAsync(drainTimeout).ConfigureAwait(false);
    }

    /// <summary>
    /// For a target known to have exited: its stream has ended (or is ending) by itself, and a stop
    /// command could only wait for a runtime that will never answer (on a reversed port, it waits
    /// for a reconnect). Drains what is left and returns the file size in bytes.
    /// </summary>
    public async Task<long> DrainAsync(TimeSpan drainTimeout)
    {
        _stopped = true;
        await _copy.WaitAsync(drainTimeout).ConfigureAwait(false);
        await _sink.FlushAsync().ConfigureAwait(false);
        return _sink.CanSeek ? _sink.Length : 0;
    }

    public async ValueTask DisposeAsync()
    {
        _session.Dispose();
        try
        {
            await _copy.ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException or OperationCanceledException)
        {
            // Disposal without Stop: the stream is cut, which the analyzer reports as truncation.
        }

        await _sink.DisposeAsync().ConfigureAwait(false);
    }
}
