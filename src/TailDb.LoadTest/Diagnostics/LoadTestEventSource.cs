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
/// garbage whose pauses it measures. Every Request carries an activity id of its own instead (the
/// store's activity-path ids, <see cref="TailDbEventSource.NewActivityId"/>, which PerfView's
/// StartStopActivityComputer pairs), so it pairs and nests by id with or without TplEventSource and
/// nothing allocates. In process (<see cref="BeginRequest"/>/<see cref="EndRequest"/>) the id is the
/// load thread's activity id from the Start to the Stop: the store's Get/Put started inside take it
/// as their RelatedActivityId and nest in it. A networked request leaves its load thread at the send
/// and ends on a reader or timeout thread, so the client writes its Request and the PoolWait, Attempt
/// and Retry nested in it through the [NonEvent] overloads below, each id set on the writing thread
/// for that one write and restored at once, nested ones with the request's id as RelatedActivityId.
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
    public unsafe void RequestStop(int kind, int valueBytes, long stopTimestamp)
    {
        EventData* data = stackalloc EventData[3];
        Fill(data, &kind, &valueBytes, &stopTimestamp);
        WriteEventCore(C.EventIds.RequestStop, 3, data);
    }

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
    public unsafe void EndRequest(Guid previous, int kind, int valueBytes, long stopTimestamp)
    {
        EventData* data = stackalloc EventData[3];
        Fill(data, &kind, &valueBytes, &stopTimestamp);
        WriteEventCore(C.EventIds.RequestStop, 3, data);
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

    /// <summary>A networked request found every pipeline slot taken; <paramref name="attempt"/> is 0 for its first send.</summary>
    [Event(C.EventIds.PoolWaitStart, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void PoolWaitStart(int attempt) => WriteInt(C.EventIds.PoolWaitStart, attempt);

    /// <summary>The wait ended: <paramref name="connection"/> is the slot's connection, -1 when the pool broke or stopped.</summary>
    [Event(C.EventIds.PoolWaitStop, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void PoolWaitStop(int connection) => WriteInt(C.EventIds.PoolWaitStop, connection);

    [Event(C.EventIds.AttemptStart, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void AttemptStart(int connection) => WriteInt(C.EventIds.AttemptStart, connection);

    /// <summary><paramref name="outcome"/>: an <see cref="AttemptOutcome"/>.</summary>
    [Event(C.EventIds.AttemptStop, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void AttemptStop(int outcome) => WriteInt(C.EventIds.AttemptStop, outcome);

    /// <summary>Retry number <paramref name="attempt"/> (1-based) begins: the attempt before it was given up.</summary>
    [Event(C.EventIds.RetryStart, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void RetryStart(int attempt) => WriteInt(C.EventIds.RetryStart, attempt);

    /// <summary><paramref name="outcome"/>: an <see cref="AttemptOutcome"/>.</summary>
    [Event(C.EventIds.RetryStop, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void RetryStop(int outcome) => WriteInt(C.EventIds.RetryStop, outcome);

    [Event(C.EventIds.PhaseStart, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void PhaseStart(int phase) => WriteEvent(C.EventIds.PhaseStart, phase);

    [Event(C.EventIds.PhaseStop, Level = EventLevel.Informational, ActivityOptions = EventActivityOptions.Disable)]
    public void PhaseStop(int phase) => WriteEvent(C.EventIds.PhaseStop, phase);

    /// <summary>A networked request's Start under its own activity id (a root: no related id).</summary>
    [NonEvent]
    public unsafe void RequestStart(Guid activity, long arrivalTimestamp, int kind)
    {
        Guid previous = Enter(activity);
        Guid none = Guid.Empty;
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = sizeof(long) };
        data[1] = new EventData { DataPointer = (nint)(&kind), Size = sizeof(int) };
        WriteEventWithRelatedActivityIdCore(C.EventIds.RequestStart, &none, 2, data);
        SetCurrentThreadActivityId(previous);
    }

    /// <summary>A networked request's Stop, on whichever thread ended it.</summary>
    [NonEvent]
    public unsafe void RequestStop(Guid activity, int kind, int valueBytes, long stopTimestamp)
    {
        Guid previous = Enter(activity);
        EventData* data = stackalloc EventData[3];
        Fill(data, &kind, &valueBytes, &stopTimestamp);
        WriteEventCore(C.EventIds.RequestStop, 3, data);
        SetCurrentThreadActivityId(previous);
    }

    /// <summary>RequestStop's payload, in its declared order (kind, valueBytes, stopTimestamp).</summary>
    private static unsafe void Fill(EventData* data, int* kind, int* valueBytes, long* stopTimestamp)
    {
        data[0] = new EventData { DataPointer = (nint)kind, Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)valueBytes, Size = sizeof(int) };
        data[2] = new EventData { DataPointer = (nint)stopTimestamp, Size = sizeof(long) };
    }

    /// <summary>PoolWaitStart nested in <paramref name="request"/>; returns the wait's own id.</summary>
    [NonEvent]
    public Guid PoolWaitStart(Guid request, int attempt) => StartNested(C.EventIds.PoolWaitStart, request, attempt);

    [NonEvent]
    public void PoolWaitStop(Guid wait, int connection) => StopNested(C.EventIds.PoolWaitStop, wait, connection);

    /// <summary>AttemptStart (the first send) nested in <paramref name="request"/>; returns the attempt's own id.</summary>
    [NonEvent]
    public Guid AttemptStart(Guid request, int connection) => StartNested(C.EventIds.AttemptStart, request, connection);

    /// <summary>AttemptStop or RetryStop, whichever <paramref name="attempt"/> (0: the first send) started.</summary>
    [NonEvent]
    public void AttemptStop(Guid activity, int attempt, AttemptOutcome outcome) =>
        StopNested(attempt == 0 ? C.EventIds.AttemptStop : C.EventIds.RetryStop, activity, (int)outcome);

    /// <summary>RetryStart nested in <paramref name="request"/>; returns the retry's own id.</summary>
    [NonEvent]
    public Guid RetryStart(Guid request, int attempt) => StartNested(C.EventIds.RetryStart, request, attempt);

    [NonEvent]
    private unsafe Guid StartNested(int eventId, Guid parent, int value)
    {
        Guid activity = TailDbEventSource.NewActivityId();
        Guid previous = Enter(activity);
        EventData data = new() { DataPointer = (nint)(&value), Size = sizeof(int) };
        WriteEventWithRelatedActivityIdCore(eventId, &parent, 1, &data);
        SetCurrentThreadActivityId(previous);
        return activity;
    }

    [NonEvent]
    private unsafe void StopNested(int eventId, Guid activity, int value)
    {
        Guid previous = Enter(activity);
        EventData data = new() { DataPointer = (nint)(&value), Size = sizeof(int) };
        WriteEventCore(eventId, 1, &data);
        SetCurrentThreadActivityId(previous);
    }

    [NonEvent]
    private unsafe void WriteInt(int eventId, int value)
    {
        EventData data = new() { DataPointer = (nint)(&value), Size = sizeof(int) };
        WriteEventCore(eventId, 1, &data);
    }

    [NonEvent]
    private static Guid Enter(Guid activity)
    {
        SetCurrentThreadActivityId(activity, out Guid previous);
        return previous;
    }

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
