using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using TailDb.Server.Diagnostics;
using TailDb.Server.Tests.Hosting;
using TailDb.Tracing;

namespace TailDb.Server.Tests.Diagnostics;

[Collection(ServerEventsGroup.Name)]
public class ServerEventSourceTests
{
    [Fact]
    public void The_manifest_says_what_the_contract_says()
    {
        string manifest = EventSource.GenerateManifest(typeof(ServerEventSource), "")!;
        Assert.Contains($"name=\"{ServerEventContract.ProviderName}\"", manifest, StringComparison.Ordinal);
        Assert.Contains($"<task name=\"{ServerEventContract.CommandActivity}\"", manifest, StringComparison.Ordinal);
        string[] fields =
        [
            ServerEventContract.Fields.Command, ServerEventContract.Fields.KeyHash, ServerEventContract.Fields.Bytes,
            ServerEventContract.Fields.ConnectionId, ServerEventContract.Fields.ArrivalTimestamp, ServerEventContract.Fields.CommandName,
            ServerEventContract.Fields.ClientName,
        ];
        int at = manifest.IndexOf("<template tid=\"CommandStartArgs\">", StringComparison.Ordinal);
        Assert.True(at >= 0, manifest);
        foreach (string field in fields)
        {
            int next = manifest.IndexOf($"name=\"{field}\"", at, StringComparison.Ordinal);
            Assert.True(next > at, $"field {field} in order");
            at = next;
        }
    }

    [Fact]
    public async Task A_command_is_a_start_stop_pair_with_its_arrival_client_name_and_the_store_get_nested_inside()
    {
        using var listener = new EventRecorder();
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        string name = NameConnection(client, "checkout-");
        client.SendCommand("SET", "k", "v");
        client.ReadReply();
        long before = Stopwatch.GetTimestamp();
        client.SendCommand("GET", "k");
        Assert.Equal("v", client.ReadReply());

        EventWrittenEventArgs start = listener.Events.Last(e => e.EventName == "CommandStart" && (string)e.Payload![5]! == "get" && (string)e.Payload[6]! == name);
        Assert.Equal(DispatcherKeyHash("k"u8), (long)start.Payload![1]!);
        
        Assert.Equal((int)TailDb.Server.Commands.CommandKind.Get, (int)start.Payload[0]!);
        long arrival = (long)start.Payload[4]!;
        Assert.InRange(arrival, before, Stopwatch.GetTimestamp());
        Assert.Contains(listener.Events, e => e.EventName == "CommandStop" && (int)e.Payload![0]! == (int)TailDb.Server.Commands.CommandKind.Get);
        Assert.Contains(listener.Events, e => e.EventSource.Name == "TailDb" && e.EventName == "GetStart" && e.RelatedActivityId == start.ActivityId);
    }

    [Fact]
    public async Task Traced_pipelined_sets_are_written_as_one_batch_each_its_own_command_with_its_put_nested_inside()
    {
        using var listener = new EventRecorder();
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        string name = NameConnection(client, "batch-");

        // One read, three SETs: a traced server writes them as one batch, as an untraced one does.
        client.Send([.. RawClient.Command("SET", "a", "1"), .. RawClient.Command("SET", "b", "22"), .. RawClient.Command("SET", "c", "333")]);
        Assert.Equal(["+OK", "+OK", "+OK"], [client.ReadReply(), client.ReadReply(), client.ReadReply()]);

        EventWrittenEventArgs[] events = [.. listener.Events];
        int[] starts = [.. Enumerable.Range(0, events.Length).Where(i => events[i].EventName == "CommandStart" && (string)events[i].Payload![6]! == name && (string)events[i].Payload![5]! == "set")];
        Assert.Equal(3, starts.Length);
        Guid[] commands = [.. starts.Select(i => events[i].ActivityId)];
        Assert.Equal(3, commands.Distinct().Count());
        Assert.DoesNotContain(Guid.Empty, commands);

        // Each SET's Put nests in its own command, and every Put started before any of the three stopped: one batch.
        int[] puts = [.. commands.Select(id => Array.FindIndex(events, e => e.EventSource.Name == "TailDb" && e.EventName == "PutStart" && e.RelatedActivityId == id))];
        int[] stops = [.. commands.Select(id => Array.FindIndex(events, e => e.EventName == "CommandStop" && e.ActivityId == id))];
        Assert.All(puts, i => Assert.True(i > 0, "a Put nested in each SET's command"));
        Assert.All(stops, i => Assert.True(i > 0, "a CommandStop under each SET's id"));
        Assert.True(puts.Max() < stops.Min(), $"Puts at {string.Join(",", puts)}, Stops at {string.Join(",", stops)}: written one by one, not as a batch");
        Assert.Equal([(long)DispatcherKeyHash("a"u8), DispatcherKeyHash("b"u8), DispatcherKeyHash("c"u8)], starts.Select(i => (long)events[i].Payload![1]!));
    }

    /// <summary>
    /// Other servers in this process may still be draining and emit too: a test's connection is told
    /// apart by a name of its own (CLIENT SETNAME, the CommandStart's clientName).
    /// </summary>
    private static string NameConnection(RawClient client, string prefix)
    {
        string name = prefix + Guid.NewGuid().ToString("N");
        client.SendCommand("CLIENT", "SETNAME", name);
        client.ReadReply();
        return name;
    }

    private static long DispatcherKeyHash(ReadOnlySpan<byte> key) => TailDb.Server.Commands.CommandDispatcher.KeyHash(key);
}
