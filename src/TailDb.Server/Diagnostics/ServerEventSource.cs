using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;
using TailDb.Diagnostics;
using C = TailDb.Tracing.ServerEventContract;

namespace TailDb.Server.Diagnostics;

/// <summary>
/// The server's events. CommandStart/CommandStop are a Start/Stop pair (task "Command"). The
/// dispatcher writes them through <see cref="BeginCommand"/>/<see cref="EndCommand"/> under an id of
/// the command's own (the store's counter, EventSource's activity-path format, which PerfView's
/// StartStopActivityComputer pairs), kept as the thread's activity id while the command runs
/// synchronously: the store's Get/Put/Delete take it as their RelatedActivityId and nest in it,
/// without TplEventSource keyword 0x80, whose activity tracking allocates on every Start. Written through WriteEventCore: no boxing, and the two
/// strings are existing ones (a static command name, the connection's CLIENT SETNAME or ""), so an
/// enabled event creates nothing per command. The command is also an int (<c>CommandKind</c>).
/// </summary>
[EventSource(Name = C.ProviderName)]
public sealed class ServerEventSource : EventSource
{
    public static readonly ServerEventSource Log = new();

    private ServerEventSource()
    {
    }

    public static class Keywords
    {
        public const EventKeywords Commands = (EventKeywords)C.Keywords.Commands;
        public const EventKeywords Connections = (EventKeywords)C.Keywords.Connections;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool CommandsEnabled() => IsEnabled(EventLevel.Informational, Keywords.Commands);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool ConnectionsEnabled() => IsEnabled(EventLevel.Informational, Keywords.Connections);

    /// <summary>Numbers first, strings last: a trace reader that stops at the first string still gets every number.</summary>
    [Event(C.EventIds.CommandStart, Level = EventLevel.Informational, Keywords = Keywords.Commands)]
    public unsafe void CommandStart(int command, long keyHash, int bytes, long connectionId, long arrivalTimestamp, string commandName, string clientName)
    {
        fixed (char* commandPtr = commandName)
        fixed (char* namePtr = clientName)
        {
            EventData* data = stackalloc EventData[7];
            data[0] = new EventData { DataPointer = (nint)(&command), Size = 4 };
            data[1] = new EventData { DataPointer = (nint)(&keyHash), Size = 8 };
            data[2] = new EventData { DataPointer = (nint)(&bytes), Size = 4 };
            data[3] = new EventData { DataPointer = (nint)(&connectionId), Size = 8 };
            data[4] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = 8 };
            data[5] = new EventData { DataPointer = (nint)commandPtr, Size = (commandName.Length + 1) * 2 };
            data[6] = new EventData { DataPointer = (nint)namePtr, Size = (clientName.Length + 1) * 2 };
            WriteEventCore(C.EventIds.CommandStart, 7, data);
        }
    }

    /// <summary>
    /// CommandStart under a new activity id, which stays the calling thread's activity id until
    /// <see cref="Leave"/>; returns the new id (for <see cref="EndCommand"/>) and the thread's previous one.
    /// </summary>
    [NonEvent]
    public unsafe Guid BeginCommand(int command, long keyHash, int bytes, long connectionId, long arrivalTimestamp, string commandName, string clientName, out Guid previous)
    {
        Guid activity = TailDbEventSource.NewActivityId();
        SetCurrentThreadActivityId(activity, out previous);
        fixed (char* commandPtr = commandName)
        fixed (char* namePtr = clientName)
        {
            EventData* data = stackalloc EventData[7];
            data[0] = new EventData { DataPointer = (nint)(&command), Size = 4 };
            data[1] = new EventData { DataPointer = (nint)(&keyHash), Size = 8 };
            data[2] = new EventData { DataPointer = (nint)(&bytes), Size = 4 };
            data[3] = new EventData { DataPointer = (nint)(&connectionId), Size = 8 };
            data[4] = new EventData { DataPointer = (nint)(&arrivalTimestamp), Size = 8 };
            data[5] = new EventData { DataPointer = (nint)commandPtr, Size = (commandName.Length + 1) * 2 };
            data[6] = new EventData { DataPointer = (nint)namePtr, Size = (clientName.Length + 1) * 2 };
            Guid related = previous;
            // A related id, even an empty one, keeps TPL's ActivityTracker out when another session has 0x80 on.
            WriteEventWithRelatedActivityIdCore(C.EventIds.CommandStart, &related, 7, data);
        }

        return activity;
    }

    /// <summary>Gives the thread back the activity id it had before <see cref="BeginCommand"/> (the command went async, or ended).</summary>
    [NonEvent]
    public static void Leave(Guid previous) => SetCurrentThreadActivityId(previous);

    /// <summary>CommandStop under the command's id, on whatever thread the command ended; the thread's own id is left as it was.</summary>
    [NonEvent]
    public unsafe void EndCommand(Guid activity, int command, int error, int replyBytes)
    {
        SetCurrentThreadActivityId(activity, out Guid previous);
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&command), Size = 4 };
        data[1] = new EventData { DataPointer = (nint)(&error), Size = 4 };
        data[2] = new EventData { DataPointer = (nint)(&replyBytes), Size = 4 };
        WriteEventCore(C.EventIds.CommandStop, 3, data);
        SetCurrentThreadActivityId(previous);
    }

    [Event(C.EventIds.CommandStop, Level = EventLevel.Informational, Keywords = Keywords.Commands)]
    public unsafe void CommandStop(int command, int error, int replyBytes)
    {
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&command), Size = 4 };
        data[1] = new EventData { DataPointer = (nint)(&error), Size = 4 };
        data[2] = new EventData { DataPointer = (nint)(&replyBytes), Size = 4 };
        WriteEventCore(C.EventIds.CommandStop, 3, data);
    }

    [Event(C.EventIds.ConnectionOpened, Level = EventLevel.Informational, Keywords = Keywords.Connections)]
    public void ConnectionOpened(long connectionId) => WriteEvent(C.EventIds.ConnectionOpened, connectionId);

    [Event(C.EventIds.ConnectionClosed, Level = EventLevel.Informational, Keywords = Keywords.Connections)]
    public void ConnectionClosed(long connectionId, long commands) => WriteEvent(C.EventIds.ConnectionClosed, connectionId, commands);

    [Event(C.EventIds.ProtocolError, Level = EventLevel.Informational, Keywords = Keywords.Connections)]
    public void ProtocolError(long connectionId, string reason) => WriteEvent(C.EventIds.ProtocolError, connectionId, reason);
}
