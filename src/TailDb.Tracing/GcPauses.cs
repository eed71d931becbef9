using TailDb.Tracing.Recording;

namespace TailDb.Tracing;

/// <summary>
/// What a stop-the-world GC pause is in the runtime's events, stated once for every path that
/// finds them (the analyzer's computer, the watch's trigger, the load test's truth file): a
/// GCSuspendEEBegin for a GC (reason SuspendForGC or SuspendForGCPrep) to the GCRestartEEEnd of
/// the same thread. Only the suspending thread's restart ends the pause: the sample profiler also
/// suspends the runtime, and its tick's restart (which the GC's suspension waited behind) does not.
/// </summary>
public static class GcPauses
{
    public const string Provider = RecordingProviders.Runtime;

    /// <summary>The runtime provider's GC keyword, which carries the suspension events.</summary>
    public const long GcKeyword = 0x1;

    public const int SuspendEEBeginId = 9;
    public const int RestartEEEndId = 3;

    /// <summary>GCSuspendEEReason.SuspendForGC and SuspendForGCPrep (the payload's first field).</summary>
    public const uint SuspendForGc = 1;
    public const uint SuspendForGcPrep = 6;

    public static bool IsGcSuspension(uint reason) => reason is SuspendForGc or SuspendForGcPrep;
}

/// <summary>
/// The pairing of <see cref="GcPauses"/> over any clock (QPC ticks, Stopwatch ticks, milliseconds):
/// at most one GC suspension is open at a time (GCs do not nest).
/// </summary>
public struct GcPausePairing<TTime>
    where TTime : struct
{
    private TTime? _since;
    private long _thread;

    /// <summary>When the open pause began, or null.</summary>
    public readonly TTime? OpenSince => _since;

    /// <summary>A SuspendEE begin: opens a pause when the suspension is for a GC (other reasons change nothing).</summary>
    public bool Begin(long thread, uint reason, TTime time)
    {
        if (!GcPauses.IsGcSuspension(reason))
        {
            return false;
        }

        _since = time;
        _thread = thread;
        return true;
    }

    /// <summary>A RestartEE end: closes the open pause when this thread opened it, giving its start.</summary>
    public bool TryEnd(long thread, out TTime start)
    {
        if (_since is { } since && thread == _thread)
        {
            start = since;
            _since = null;
            return true;
        }

        start = default;
        return false;
    }

    /// <summary>Closes the open pause without an end (the trace ended inside it).</summary>
    public bool TryClose(out TTime start)
    {
        if (_since is { } since)
        {
            start = since;
            _since = null;
            return true;
        }

        start = default;
        return false;
    }
}
