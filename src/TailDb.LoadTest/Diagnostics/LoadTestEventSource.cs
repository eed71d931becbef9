using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;
using TailDb.Diagnostics;
using TailDb.Tracing;
using C = TailDb.Tracing.LoadTestEventContract;

namespace TailDb.LoadTest.Diagnostics;

/// <summary>
/// The load test's requests and phases (<see cref="LoadTestEventContract"/>). Activity tracking is
/// off for these events (<see cref="EventActivityOptions.Disable"/>): with TplEventSource 0x80 on,
/// EventSource's ActivityTracker would allocate on every Start, and the load test must not make the
/// garbage whose pauses it measures. Instead a Request carries an id of its own from the store's
/// counter (<see cref="TailDbEventSource.NewActivityId"/>, EventSource's activity-path format, so
/// PerfView's StartStopActivityComputer pairs it), set as the load thread's activity id from its
/// Start to its Stop: the store's Get/Put started inside it take it as their RelatedActivityId and
/// nest in it. A load thread runs one request at a time, start to stop, so the analyzer could also
/// pair them by thread.
/// </summary>
[EventSource(Name = C.ProviderName)]
public sealed class LoadTestEventSource : EventSource
{
    public static readonly LoadTestEventSource Log = new();

    private LoadTestEventSource()
    {
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool RequestsEnabled() => IsEnabled(EventLevel.Informational, EventKeywords.All);

    [Event(C.EventIds.RequestStart, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public unsafe void RequestStart(long arrivalTimestamp, int kind)
    {
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = sizeof(long) };
        data[1] = new EventData { DataPointer = (nint)(&kind), Size = sizeof(int) };
        WriteEventCore(C.EventIds.RequestStart, 2, data);
    }

    [Event(C.EventIds.RequestStop, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void RequestStop(int kind, int valueBytes) => WriteEvent(C.EventIds.RequestStop, kind, valueBytes);

    /// <summary>
    /// Starts a Request under a new activity id, which stays the calling thread's activity id until
    /// <see cref="EndRequest"/> (the store's events inside take it as their parent); returns the
    /// thread's previous id for <see cref="EndRequest"/> to restore. Two activity-id swaps a request,
    /// no allocation.
    /// </summary>
    [NonEvent]
    public unsafe Guid BeginRequest(long arrivalTimestamp, int kind)
    {
        SetCurrentThreadActivityId(TailDbEventSource.NewActivityId(), out Guid previous);
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = sizeof(long) };
        data[1] = new EventData { DataPointer = (nint)(&kind), Size = sizeof(int) };
        // A related id, even an empty one, keeps TPL's ActivityTracker out when another session has 0x80 on.
        WriteEventWithRelatedActivityIdCore(C.EventIds.RequestStart, &previous, 2, data);
        return previous;
    }

    /// <summary>Stops the Request <see cref="BeginRequest"/> started on this thread and restores the thread's previous activity id.</summary>
    [NonEvent]
    public unsafe void EndRequest(Guid previous, int kind, int valueBytes)
    {
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&kind), Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)(&valueBytes), Size = sizeof(int) };
        WriteEventCore(C.EventIds.RequestStop, 2, data);
        SetCurrentThreadActivityId(previous);
    }

    /// <summary>A networked request's bytes went out (its attempt's send); the arrival identifies the request.</summary>
    [Event(C.EventIds.RequestSent, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public unsafe void RequestSent(long arrivalTimestamp, int connection)
    {
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = sizeof(long) };
        data[1] = new EventData { DataPointer = (nint)(&connection), Size = sizeof(int) };
        WriteEventCore(C.EventIds.RequestSent, 2, data);
    }

    /// <summary>A networked request's reply was read in full, on the connection's reader thread.</summary>
    [Event(C.EventIds.ReplyReceived, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public unsafe void ReplyReceived(long arrivalTimestamp, int connection, int kind)
    {
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = sizeof(long) };
        data[1] = new EventData { DataPointer = (nint)(&connection), Size = sizeof(int) };
        data[2] = new EventData { DataPointer = (nint)(&kind), Size = sizeof(int) };
        WriteEventCore(C.EventIds.ReplyReceived, 3, data);
    }

    [Event(C.EventIds.PhaseStart, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void PhaseStart(int phase) => WriteEvent(C.EventIds.PhaseStart, phase);

    [Event(C.EventIds.PhaseStop, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void PhaseStop(int phase) => WriteEvent(C.EventIds.PhaseStop, phase);

    /// <summary>Marks a phase from here to the returned scope's disposal.</summary>
    [NonEvent]
    public PhaseScope Mark(Phase phase)
    {
        if (IsEnabled())
        {
            PhaseStart((int)phase);
        }

        return new PhaseScope(this, phase);
    }

    public readonly struct PhaseScope(LoadTestEventSource log, Phase phase) : IDisposable
    {
        public void Dispose()
        {
            if (log.IsEnabled())
            {
                log.PhaseStop((int)phase);
            }
        }
    }
}
