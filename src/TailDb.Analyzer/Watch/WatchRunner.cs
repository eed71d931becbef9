using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.EventPipe;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Tracing;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Watch;

/// <summary>What a watch observes: a running process, or a command it launches suspended.</summary>
internal abstract record WatchTarget
{
    internal sealed record Attach(int ProcessId) : WatchTarget;

    internal sealed record Launch(IReadOnlyList<string> Command) : WatchTarget;

    /// <summary>--name: every process of that name in turn (a restarted service is watched again).</summary>
    internal sealed record Named(string Name) : WatchTarget;
}

/// <summary>Captures started across every session of one watch (--max-captures counts them all).</summary>
internal sealed class CaptureBudget
{
    private int _started;

    public int Started => Volatile.Read(ref _started);

    public void Take() => Interlocked.Increment(ref _started);
}

/// <summary>How a watch ended.</summary>
internal enum WatchEnd
{
    TargetExited,
    Cancelled,
}

/// <summary>
/// One watch: a continuous EventPipe session streamed into the ring, the tracker reading it, the
/// capture queue writing what triggers pick, the view once a second. Ends when the target exits or
/// on Ctrl-C/SIGTERM (the token): the session is stopped, a pending capture is written with what
/// arrived, and every capture handed over is finished before this returns. With --sampler perf, perf
/// runs system-wide as a flight recorder of its own for the whole watch (every session of --name),
/// dumped for each capture, and is stopped last, whatever ended the watch.
/// </summary>
internal static class WatchRunner
{
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan DrainTimeout = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan PortTimeout = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan PerfStartTimeout = TimeSpan.FromSeconds(30);

    public static async Task<(WatchEnd End, WatchStats Stats, IReadOnlyList<CaptureResult> Captures)> RunAsync(
        WatchSettings settings, WatchTarget target, TextWriter output, bool interactive, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(target);
        var name = target switch
        {
            WatchTarget.Launch l => string.Join(' ', l.Command),
            WatchTarget.Named n => $"processes named {n.Name}",
            _ => $"process {((WatchTarget.Attach)target).ProcessId}",
        };
        var view = new LiveView(output, interactive, settings, name);
        // perf first, so the target launched below starts with perf's rings already running; not for a pid
        // that is not there, whose attach fails in its one line.
        var perf = target is WatchTarget.Attach attach && !IsAlive(attach.ProcessId) ? null : await StartPerfAsync(settings, cancellationToken);
        view.Sampler(perf?.Ring?.Describe());
        var launched = new List<int>();
        var budget = new CaptureBudget();
        (WatchEnd End, WatchStats Stats) last;
        try
        {
            var queue = new CaptureQueue(settings.CaptureDirectory, settings.Selection, settings.ReportTimeout, view.Captured, perf);
            try
            {
                last = target is WatchTarget.Named named
                    ? await RunNamedAsync(settings, named, view, queue, budget, cancellationToken)
                    : await RunSessionAsync(settings, target, view, queue, budget, cancellationToken, launched);
            }
            finally
            {
                // Every capture's perf dump is converted before perf stops: the queue needs perf alive.
                await queue.CompleteAsync();
            }

            return Finish(view, last, queue.Results);
        }
        finally
        {
            if (perf is not null)
            {
                await perf.DisposeAsync();
                // The maps of a process this watch launched with them on, now that no capture will read them.
                launched.ForEach(PerfRecorder.DeletePerfMaps);
            }
        }
    }

    private static (WatchEnd End, WatchStats Stats, IReadOnlyList<CaptureResult> Captures) Finish(
        LiveView view, (WatchEnd End, WatchStats Stats) last, IReadOnlyList<CaptureResult> captures)
    {
        // After every capture's file and report: the watch's own high-water mark (its reports ran in their own processes).
        using (var self = Process.GetCurrentProcess())
        {
            view.Finished(self.PeakWorkingSet64);
        }

        return (last.End, last.Stats, captures);
    }

    /// <summary>perf's flight recorder for --sampler perf (null for another sampler); a perf that cannot start ends the watch in one line.</summary>
    private static async Task<PerfRecorder?> StartPerfAsync(WatchSettings settings, CancellationToken cancellationToken)
    {
        if (settings.Sampler.Kind != SamplerKind.Perf)
        {
            return null;
        }

        try
        {
            return await PerfRecorder.StartRingAsync(settings.Sampler.RateHz, settings.PerfRing, PerfStartTimeout, cancellationToken);
        }
        catch (InvalidOperationException e)
        {
            throw new AnalyzerException(ExitCode.RecordingFailed, $"watch: --sampler perf: {e.Message}", e);
        }
    }

    /// <summary>--name: one session per process of that name; when it exits, wait for the next one (a restart).</summary>
    private static async Task<(WatchEnd End, WatchStats Stats)> RunNamedAsync(
        WatchSettings settings, WatchTarget.Named named, LiveView view, CaptureQueue queue, CaptureBudget budget, CancellationToken cancellationToken)
    {
        var last = (End: WatchEnd.Cancelled, Stats: new WatchStats());
        int? previous = null;
        while (await WaitForProcessAsync(named.Name, previous, view, cancellationToken) is { } pid)
        {
            previous = pid;
            if (await RunNewProcessAsync(settings, pid, view, queue, budget, cancellationToken) is not { } session)
            {
                continue;
            }

            last = session;
            if (last.End == WatchEnd.Cancelled)
            {
                break;
            }
        }

        return (WatchEnd.Cancelled, last.Stats);
    }

    /// <summary>
    /// A process just found by name may not have opened its diagnostic port yet: retry the attach for a
    /// few seconds while it lives. Null when it exited first or never opened one.
    /// </summary>
    private static async Task<(WatchEnd End, WatchStats Stats)?> RunNewProcessAsync(
        WatchSettings settings, int pid, LiveView view, CaptureQueue queue, CaptureBudget budget, CancellationToken cancellationToken)
    {
        var since = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                return await RunSessionAsync(settings, new WatchTarget.Attach(pid), view, queue, budget, cancellationToken);
            }
            catch (AnalyzerException e) when (e.ExitCode == ExitCode.RecordingFailed && since.Elapsed < PortTimeout && IsAlive(pid))
            {
                try
                {
                    await Task.Delay(100, cancellationToken);
                }
                catch (OperationCanceledException)
                {
                    // Ctrl-C while the process was still opening its port: nothing was watched.
                    return null;
                }
            }
            catch (AnalyzerException e) when (e.ExitCode == ExitCode.RecordingFailed && !cancellationToken.IsCancellationRequested)
            {
                view.Skipped(pid, e.Message);
                return null;
            }
        }
    }

    private static bool IsAlive(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    /// <param name="launched">Gets the pid of a process this session launched.</param>
    private static async Task<(WatchEnd End, WatchStats Stats)> RunSessionAsync(
        WatchSettings settings, WatchTarget target, LiveView view, CaptureQueue queue, CaptureBudget budget, CancellationToken cancellationToken,
        List<int>? launched = null)
    {
        // Read when a capture fires, after the session started and set it: the rundown asks this process.
        var processId = 0;
        var tracker = new LiveTracker(settings, budget, (trigger, snapshot, loads) => queue.Enqueue(trigger, snapshot, loads, processId));
        var ring = new NetTraceRing(settings.Ring, tracker);
        var extra = settings.ExtraProviders.Append(settings.Selection.Provider).Distinct(StringComparer.OrdinalIgnoreCase);
        // No per-event stacks (as the load test's default recording): samples keep theirs, and the ring holds more time.
        // With perf, no loader or JIT method events either: perf names JIT code through the perf map, and the ring holds more time.
        var options = new RecordingOptions(
            RecordingProviders.Create(settings.Sampler.Kind == SamplerKind.EventPipe, extra, ActivityIds(settings.Selection), namesFromPerf: settings.Sampler.Kind == SamplerKind.Perf),
            EventStacks: false, BufferMegabytes: 256);

        RecordedChild? child = null;
        EventPipeRecorder recorder;
        if (target is WatchTarget.Launch launch)
        {
            child = await SessionStart.LaunchAsync("watch", launch.Command, start =>
            {
                settings.Sampler.Configure(start);
                return RecordedChild.StartAsync(start, ring, options, ConnectTimeout, cancellationToken);
            });
            recorder = child.Recorder;
            processId = child.Process.Id;
            launched?.Add(processId);
        }
        else
        {
            processId = ((WatchTarget.Attach)target).ProcessId;
            recorder = await SessionStart.AttachAsync("watch", processId, () => EventPipeRecorder.AttachAsync(processId, ring, options, cancellationToken));
            if (settings.Sampler.Kind == SamplerKind.Perf)
            {
                view.AttachedWithPerf(processId);
            }
        }

        view.Started(processId);
        var end = await FollowAsync(tracker, ring, recorder, queue, view, cancellationToken);
        try
        {
            if (end == WatchEnd.Cancelled)
            {
                await (child is not null ? child.StopAsync(DrainTimeout) : recorder.StopAsync(DrainTimeout));
            }
            else
            {
                await recorder.DrainAsync(DrainTimeout);
            }
        }
        catch (Exception e) when (e is TimeoutException or IOException or ObjectDisposedException or OperationCanceledException or TraceFormatException)
        {
            // The stream ended badly; the captures below use what the ring holds.
        }

        tracker.Finish(ring);
        if (child is not null)
        {
            await child.DisposeAsync();
        }
        else
        {
            await recorder.DisposeAsync();
        }

        tracker.Refresh();
        view.Ended(end == WatchEnd.Cancelled ? "stopped" : $"process {processId} exited", tracker.Stats);
        return (end, tracker.Stats);
    }

    /// <summary>
    /// TailDb's store and the load test give their Start/Stop events activity ids of their own, so for
    /// them the session leaves TplEventSource's task-flow ids (keyword 0x80) off, as the load test's
    /// --trace does: with it on, every task the watched process runs sets and restores a thread
    /// activity id, for nothing. Any other source (ASP.NET Core's Request, the server's Command) gets
    /// its ids from TPL. A source without ids still pairs, by thread (`Sources/ActivityPairs`, the rule `slowest` uses too).
    /// </summary>
    internal static ActivityIdSource ActivityIds(RequestSelection selection) =>
        selection.Provider.Equals(RecordingProviders.TailDb, StringComparison.OrdinalIgnoreCase)
        || selection.Provider.Equals(LoadTestEventContract.ProviderName, StringComparison.OrdinalIgnoreCase)
            ? ActivityIdSource.Own
            : ActivityIdSource.TaskFlow;

    /// <summary>
    /// The newest process called <paramref name="name"/> other than <paramref name="previous"/>; null when
    /// cancelled. Nothing announces a process start, so this looks every 200 ms (only between sessions).
    /// </summary>
    private static async Task<int?> WaitForProcessAsync(string name, int? previous, LiveView view, CancellationToken cancellationToken)
    {
        var said = false;
        while (!cancellationToken.IsCancellationRequested)
        {
            var candidates = Process.GetProcessesByName(name);
            var pid = candidates.Where(p => p.Id != previous && p.Id != Environment.ProcessId).Select(p => p.Id).DefaultIfEmpty(-1).Max();
            foreach (var process in candidates)
            {
                process.Dispose();
            }

            if (pid > 0)
            {
                return pid;
            }

            if (!said)
            {
                view.Waiting(name);
                said = true;
            }

            try
            {
                await Task.Delay(200, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }

        return null;
    }

    private static async Task<WatchEnd> FollowAsync(
        LiveTracker tracker, NetTraceRing ring, EventPipeRecorder recorder, CaptureQueue queue, LiveView view, CancellationToken cancellationToken)
    {
        while (true)
        {
            var tick = Task.Delay(TimeSpan.FromSeconds(1), CancellationToken.None);
            var done = await Task.WhenAny(recorder.Completion, tick, Task.Delay(Timeout.Infinite, cancellationToken));
            if (done == recorder.Completion)
            {
                return WatchEnd.TargetExited;
            }

            if (cancellationToken.IsCancellationRequested)
            {
                return WatchEnd.Cancelled;
            }

            tracker.FlushStale(ring);
            tracker.Refresh();
            lock (tracker.Gate)
            {
                view.Render(tracker.Stats, ring, queue.Results);
            }
        }
    }
}
