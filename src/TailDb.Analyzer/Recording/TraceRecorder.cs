using Microsoft.Diagnostics.NETCore.Client;

namespace TailDb.Analyzer.Recording;

/// <summary>
/// Streams one EventPipe session into a .nettrace file, like the load test's EventPipeRecorder
/// (linked in, same providers). It exists because EventPipeRecorder waits for the target's port
/// with DiagnosticsClient.GetPublishedProcesses, which in NETCore.Client 0.2.745401 reads every
/// /proc/N/environ and throws IOException ("No such process") on kernel threads such as
/// kthreadd when running as root: on such machines no recording could start. This one waits by
/// retrying the connection itself. Remove it once EventPipeRecorder tolerates that.
/// </summary>
internal sealed class TraceRecorder : IAsyncDisposable
{
    private readonly EventPipeSession _session;
    private readonly FileStream _file;
    private readonly Task _copy;
    private bool _stopped;

    private TraceRecorder(EventPipeSession session, FileStream file)
    {
        _session = session;
        _file = file;
        _copy = Task.Run(() => session.EventStream.CopyToAsync(file));
    }

    public static async Task<TraceRecorder> StartAsync(
        int processId, string outputPath, IReadOnlyList<EventPipeProvider> providers, bool resumeRuntime,
        int bufferMegabytes = 256, CancellationToken cancellationToken = default)
    {
        var client = new DiagnosticsClient(processId);
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
        EventPipeSession session;
        while (true)
        {
            try
            {
                session = await client.StartEventPipeSessionAsync(providers, requestRundown: true, bufferMegabytes, cancellationToken)
                    .ConfigureAwait(false);
                break;
            }
            catch (ServerNotAvailableException) when (DateTime.UtcNow < deadline)
            {
                // The runtime has not opened its diagnostic port yet.
                await Task.Delay(20, cancellationToken).ConfigureAwait(false);
            }
        }

        FileStream file;
        try
        {
            file = new FileStream(outputPath, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20, FileOptions.Asynchronous);
        }
        catch
        {
            session.Dispose();
            throw;
        }

        var recorder = new TraceRecorder(session, file);
        if (resumeRuntime)
        {
            client.ResumeRuntime();
        }

        return recorder;
    }

    /// <summary>Stops the session (the runtime writes the rundown), drains it, returns the file size.</summary>
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
            // Disposal without Stop cuts the stream; the analyzer reports that as truncation.
        }

        await _file.DisposeAsync().ConfigureAwait(false);
    }
}
