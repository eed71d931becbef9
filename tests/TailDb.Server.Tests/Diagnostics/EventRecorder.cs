using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace TailDb.Server.Tests.Diagnostics;

/// <summary>
/// An in-process listener on the server's and the store's sources. Enabling them is process-wide:
/// every server in the test process then takes its traced path (a plain SET leaves the batch, say),
/// so a test that holds one runs in <see cref="ServerEventsGroup"/>, never beside other tests.
/// </summary>
internal sealed class EventRecorder : EventListener
{
    public ConcurrentQueue<EventWrittenEventArgs> Events { get; } = new();

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name is "TailDb-Server" or "TailDb")
        {
            EnableEvents(source, EventLevel.Informational, EventKeywords.All);
        }
        else if (source.Name == "System.Threading.Tasks.TplEventSource")
        {
            // Activity ids flow only when the TPL's TasksFlowActivityIds keyword is on.
            EnableEvents(source, EventLevel.Informational, (EventKeywords)0x80);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        // ActivityId is read lazily from the reading thread's current id: read it here, on the
        // thread that wrote the event (a Command's id is that thread's only while it runs).
        _ = e.ActivityId;
        Events.Enqueue(e);
    }
}

/// <summary>The tests that turn the server's events on: run alone, after the parallel ones.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ServerEventsGroup
{
    public const string Name = "Server events on, process-wide";
}
