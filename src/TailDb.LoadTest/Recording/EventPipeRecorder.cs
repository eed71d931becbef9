using Microsoft.Diagnostics.NETCore.Client;

namespace TailDb.LoadTest.Recording;

/// <summary>
/// Streams one EventPipe session of another process into a .nettrace file. Never parses in the
/// traced process: the bytes go straight to disk on a reader task of their own.
/// </summary>
public sealed class EventPipeRecorder : IAsyncDisposable
{
    private readonly EventPipeSession _session;
    private readonly FileStream _file;
    private readonly Task _copy;
    private bool _stopped;

    private EventPipeRecorder(EventPipeSession session, FileStream file)
    {
        _session = session;
        _file = file;
        _copy = Task.Run(() => session.EventStream.CopyToAsync(file));
    }

    public string Path => _file.Name;

    /// <summary>
    /// Connects to <paramref name="processId"/> (waiting for its diagnostic port, as a child
    /// started with DOTNET_DefaultDiagnosticPortSuspend=1 opens it before it runs any code),
    /// starts the session, and resumes the runtime if it was suspended at startup.
    /// </summary>
    public static Task<EventPipeRecorder> StartAsync(
        int processId, string outputPath, IReadOnlyList<EventPipeProvider> providers,
        bool resumeRuntime, int bufferMegabytes = 256, CancellationToken cancellationToken = default) =>
        StartAsync(processId, outputPath, providers, resumeRuntime, eventStacks: true, bufferMegabytes, cancellationToken);

    /// <param name="eventStacks">
    /// false: the runtime does not walk the stack of every event it writes (.NET 9+), which is most
    /// of what a session costs the traced process per TailDb event. The sample profiler's samples
    /// keep their stacks (the sampler walks each thread itself); events lose theirs.
    /// </param>
    public static async Task<EventPipeRecorder> StartAsync(
        int processId, string outputPath, IReadOnlyList<EventPipeProvider> providers,
        bool resumeRuntime, bool eventStacks, int bufferMegabytes = 256, CancellationToken cancellationToken = default)
    {
        await WaitForDiagnosticPortAsync(processId, TimeSpan.FromSeconds(30), cancellationToken).ConfigureAwait(false);
        var client = new DiagnosticsClient(processId);

        var file = new FileStream(outputPath, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20, FileOptions.Asynchronous);
        EventPipeSession session;
        try
        {
            // The stackwalk flag needs the newer IPC command (.NET 9+); the default keeps the one every runtime knows.
            session = eventStacks
                ? await client.StartEventPipeSessionAsync(providers, requestRundown: true, bufferMegabytes, cancellationToken).ConfigureAwait(false)
                : await client.StartEventPipeSessionAsync(
                    new EventPipeSessionConfiguration(providers, bufferMegabytes, requestRundown: true, requestStackwalk: false), cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await file.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        var recorder = new EventPipeRecorder(session, file);
        if (resumeRuntime)
        {
            client.ResumeRuntime();
        }

        return recorder;
    }

    // DiagnosticsClient's own wait is internal in this package version; the published-process list
    // is the public way to see that the runtime has opened its port.
    private static async Task WaitForDiagnosticPortAsync(int processId, TimeSpan limit, CancellationToken cancellationToken)
    {
        var deadline = DateTime.UtcNow + limit;
        while (!IsPublished(processId))
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"process {processId} opened no diagnostic port within {limit.TotalSeconds:0} s");
            }

            await Task.Delay(20, cancellationToken).ConfigureAwait(false);
        }
    }

    private static bool IsPublished(int processId)
    {
        try
        {
            return DiagnosticsClient.GetPublishedProcesses().Contains(processId);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException && !OperatingSystem.IsWindows())
        {
            // The listing reads every published process's /proc/<pid>/environ and throws when one of
            // them exits meanwhile (seen on a busy machine: "No such process : '/proc/2/environ'").
            // The port of a process that shares our TMPDIR (a child we started) is a socket we can see.
            return Directory.EnumerateFiles(System.IO.Path.GetTempPath(), $"dotnet-diagnostic-{processId}-*-socket").Any();
        }
    }

    /// <summary>
    /// Stops the session (the runtime then writes the rundown: method names for code that ran
    /// before the session), drains the stream to its end and returns the file size in bytes.
    /// A process that already exited ends its stream by itself; that is not an error.
    /// </summary>
    public async Task<long> StopAsync(TimeSpan drainTimeout)
    {
        if (!_stopped)
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

            await _copy.WaitAsync(drainTimeout).ConfigureAwait(false);
            await _file.FlushAsync().ConfigureAwait(false);
        }

        return _file.Length;
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

        await _file.DisposeAsync().ConfigureAwait(false);
    }
}
