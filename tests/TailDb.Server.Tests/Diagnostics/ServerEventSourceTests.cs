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
        // Other servers in this process may still be draining and emit too: this connection is told apart by its name.
        string name = "checkout-" + Guid.NewGuid().ToString("N");
        client.SendCommand("CLIENT", "SETNAME", name);
        client.ReadReply();
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

    private static long DispatcherKeyHash(ReadOnlySpan<byte> key) => TailDb.Server.Commands.CommandDispatcher.KeyHash(key);
}
