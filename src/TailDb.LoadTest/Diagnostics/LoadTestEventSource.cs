using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;
using TailDb.Tracing;
using C = TailDb.Tracing.LoadTestEventContract;

namespace TailDb.LoadTest.Diagnostics;

/// <summary>
/// The load test's requests and phases (<see cref="LoadTestEventContract"/>). Activity tracking is
/// off for these events (<see cref="EventActivityOptions.Disable"/>): with TplEventSource 0x80 on,
/// EventSource's ActivityTracker would allocate on every Start, and the load test must not make the
/// garbage whose pauses it measures. The analyzer pairs them by thread, which is exact here: a load
/// thread runs one request at a time, start to stop.
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
