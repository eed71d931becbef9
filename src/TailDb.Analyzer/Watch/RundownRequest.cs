using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Tracing.Recording;

namespace TailDb.Analyzer.Watch;

/// <summary>The rundown's MethodDCEndVerbose payloads (MethodLoadVerbose's layout), or why there are none.</summary>
internal sealed record RundownMethods(int Version, IReadOnlyList<byte[]> Payloads, string? Problem)
{
    public static readonly RundownMethods None = new(0, [], "no rundown asked for");

    /// <summary>With perf the samples come from perf's file, whose JIT frames the perf map names: nothing in the capture needs a rundown.</summary>
    public static readonly RundownMethods NotNeeded = new(0, [], null);

    /// <summary>The runtime answered and refused the session (not gone, not unreachable).</summary>
    public bool Refused { get; init; }
}

/// <summary>
/// The names a capture's stacks need that its session never saw load: ReadyToRun code (most of the
/// framework), and code jitted before `watch --pid` attached. A session's rundown comes only when it
/// stops, and the watch's session must not stop, so for each capture a second session on the same
/// process, with no events of its own, is started with rundown requested and stopped at once: its
/// MethodDCEndVerbose events list every method with code at that moment (what `record` gets at its end).
/// </summary>
internal static class RundownRequest
{
    /// <summary>
    /// Starts the target refused once in CI (2026-11-27, "Start failed - HRESULT: 0x80004005", the
    /// runtime's E_FAIL for a session it would not enable) while the watch's own session ran on; the
    /// capture is off every request's path, so a refusal is retried, a few times, before the capture
    /// is written without the rundown.
    /// </summary>
    private const int StartAttempts = 3;

    private static readonly TimeSpan s_retryDelay = TimeSpan.FromMilliseconds(250);

    public static RundownMethods Collect(int processId, TimeSpan timeout)
    {
        RundownMethods result = RundownMethods.None;
        for (var attempt = 1; attempt <= StartAttempts; attempt++)
        {
            result = CollectOnce(processId, timeout);
            if (!result.Refused)
            {
                return result;
            }

            Thread.Sleep(s_retryDelay);
        }

        return result with { Problem = $"{result.Problem} ({StartAttempts} attempts)" };
    }

    private static RundownMethods CollectOnce(int processId, TimeSpan timeout)
    {
        try
        {
            var client = new DiagnosticsClient(processId);
            // EventPipe wants one provider; the runtime's with no keywords sends nothing but the rundown.
            using var session = client.StartEventPipeSession([new EventPipeProvider(RecordingProviders.Runtime, EventLevel.Informational, 0)], requestRundown: true, circularBufferMB: 64);
            var payloads = new List<byte[]>();
            var version = 0;
            var reading = Task.Run(() =>
            {
                using var source = new EventPipeEventSource(session.EventStream);
                var rundown = new ClrRundownTraceEventParser(source);
                rundown.MethodDCStopVerbose += data =>
                {
                    payloads.Add(data.EventData());
                    version = data.Version;
                };
                source.Process();
            });
            session.Stop();
            if (!reading.Wait(timeout))
            {
                return new(0, [], $"no rundown within {timeout.TotalSeconds:0} s");
            }

            return new(version, payloads, null);
        }
        catch (ServerErrorException e)
        {
            // The runtime answered and would not start the session: worth another try.
            return new(0, [], $"rundown failed: {e.Message}") { Refused = true };
        }
        catch (Exception e) when (e is DiagnosticsClientException or IOException or TimeoutException or UnauthorizedAccessException or AggregateException or InvalidOperationException)
        {
            // The target exited, or could not be reached: the capture is written without the rundown, and says so.
            return new(0, [], $"rundown failed: {(e is AggregateException a ? a.InnerException?.Message : e.Message)}");
        }
    }
}
