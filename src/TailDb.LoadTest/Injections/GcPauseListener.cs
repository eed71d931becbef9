using System.Diagnostics;
using System.Diagnostics.Tracing;
using TailDb.Tracing;

namespace TailDb.LoadTest.Injections;

/// <summary>One stop-the-world GC pause on the Stopwatch clock: the GC's SuspendEE begin to its RestartEE end.</summary>
public readonly record struct GcPauseTimes(long Start, long Stop);

/// <summary>
/// Where the GC pauses of an injected run fell, for the truth file. A forced GC's or an allocation
/// burst's window is the injector's call, and on a starved machine that call lasts far longer than
/// the pauses inside it (a 145 ms burst window held 30 ms of pauses): a request that overlapped the
/// window but no pause was not held by the GC. The runtime says where the pauses were, in process,
/// through an <see cref="EventListener"/> on its GC events (only while injecting).
/// <para>
/// The listener gets each event's time as a <see cref="DateTime"/>, which the runtime derives from
/// the event's Stopwatch stamp and one (wall clock, Stopwatch) pair taken when its session began.
/// A pair taken here when the listener starts maps it back, to within the few microseconds between
/// the two pairs. Only suspensions for a GC count: the sample profiler suspends the runtime too.
/// </para>
/// </summary>
public sealed class GcPauseListener : EventListener
{

    private readonly object _lock = new();
    private readonly List<GcPauseTimes> _pauses = [];
    // The GC suspension begun and not yet restarted (written under _lock).
    private GcPausePairing<long> _open;
    private volatile bool _ready;
    private readonly DateTime _originUtc;
    private readonly long _originTicks;
    private int _restarts; // GC pauses ended (written under _lock)

    public GcPauseListener()
    {
        _originTicks = Stopwatch.GetTimestamp();
        _originUtc = DateTime.UtcNow;
        _ready = true;
    }

    /// <summary>
    /// Waits (up to <paramref name="timeout"/>) until the listener has seen at least
    /// <paramref name="gcs"/> GC pauses end: events reach a listener asynchronously.
    /// </summary>
    public bool WaitForPauses(int gcs, TimeSpan timeout)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while (Volatile.Read(ref _restarts) < gcs)
        {
            if (Stopwatch.GetTimestamp() > deadline)
            {
                return false;
            }

            Thread.Sleep(20);
        }

        return true;
    }

    /// <summary>The pauses seen so far, in time order.</summary>
    public IReadOnlyList<GcPauseTimes> Pauses()
    {
        lock (_lock)
        {
            return [.. _pauses.OrderBy(p => p.Start)];
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        ArgumentNullException.ThrowIfNull(eventSource);
        if (eventSource.Name == GcPauses.Provider)
        {
            EnableEvents(eventSource, EventLevel.Informational, (EventKeywords)GcPauses.GcKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        ArgumentNullException.ThrowIfNull(eventData);
        // Events can arrive while the base constructor runs, before the clock pair exists.
        if (!_ready || eventData.EventId is not (GcPauses.SuspendEEBeginId or GcPauses.RestartEEEndId))
        {
            return;
        }

        bool begin = eventData.EventId == GcPauses.SuspendEEBeginId;
        uint reason = begin && eventData.Payload is [uint r, ..] ? r : GcPauses.SuspendForGc;

        long time = _originTicks + (long)((eventData.TimeStamp - _originUtc).TotalSeconds * Stopwatch.Frequency);
        long thread = eventData.OSThreadId;
        lock (_lock)
        {
            if (begin)
            {
                _open.Begin(thread, reason, time);
            }
            else if (_open.TryEnd(thread, out long start))
            {
                _pauses.Add(new GcPauseTimes(start, Math.Max(start, time)));
                _restarts++;
            }
        }
    }
}
