using System.Text;
using TailDb.Server.Tests.Hosting;

namespace TailDb.Server.Tests.Commands;

/// <summary>
/// Pipelined plain SETs go to the store as one batch (<see cref="TailDb.Server.Commands.SetBatch"/>):
/// as clients see it, nothing may change but the cost.
/// </summary>
public class SetBatchTests
{
    private static byte[] Pipeline(params string[][] commands) => [.. commands.SelectMany(c => RawClient.Command(c))];

    [Fact]
    public async Task Batched_sets_and_the_commands_between_them_answer_in_order_and_see_each_other()
    {
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        client.Send(Pipeline(
            ["SET", "a", "1"], ["SET", "a", "2"], ["GET", "a"], ["SET", "b", "x"], ["SET", "a", "3", "NX"],
            ["SET", "c", "y"], ["SET", "c", "z", "XX"], ["SETNX", "c", "w"], ["GET", "c"], ["SET", "a", "4"], ["PING"], ["GET", "a"]));

        string[] expected = ["+OK", "+OK", "2", "+OK", "(nil)", "+OK", "+OK", ":0", "z", "+OK", "+PONG", "4"];
        Assert.Equal(expected, expected.Select(_ => client.ReadReply()));
    }

    [Fact]
    public async Task A_pipeline_longer_than_one_batch_is_written_whole_and_counted_per_command()
    {
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        const int sets = 1000;
        client.Send(Pipeline([.. Enumerable.Range(0, sets).Select(i => new[] { "SET", $"key{i % 300}", $"value{i}" })]));
        Assert.All(Enumerable.Range(0, sets).Select(_ => client.ReadReply()), reply => Assert.Equal("+OK", reply));

        client.SendCommand("GET", "key299");
        Assert.Equal("value899", client.ReadReply());
        client.SendCommand("DBSIZE");
        Assert.Equal(":300", client.ReadReply());
        client.SendCommand("INFO", "commandstats");
        Assert.Contains($"cmdstat_set:calls={sets},", client.ReadReply(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_value_over_the_store_limit_in_a_batch_gets_its_error_and_the_others_are_written()
    {
        await using var server = TestServer.Start(o => o with { MaxValueBytes = 8 });
        using var client = new RawClient(server.Port);
        client.Send(Pipeline(["SET", "a", "1"], ["SET", "b", "longer than eight"], ["SET", "c", "3"], ["GET", "c"]));

        Assert.Equal("+OK", client.ReadReply());
        Assert.StartsWith("-ERR value larger than the store's limit (8 bytes)", client.ReadReply(), StringComparison.Ordinal);
        Assert.Equal(["+OK", "3"], [client.ReadReply(), client.ReadReply()]);
    }

    [Fact]
    public async Task Sets_batched_before_a_malformed_frame_are_answered_and_written_before_the_connection_closes()
    {
        await using var server = TestServer.Start();
        using (var bad = new RawClient(server.Port))
        {
            bad.Send([.. Pipeline(["SET", "a", "1"], ["SET", "b", "2"]), .. "*1\r\n+GET\r\n"u8.ToArray()]);
            Assert.Equal(
                "+OK\r\n+OK\r\n-ERR Protocol error: expected '$', got '+'\r\n",
                Encoding.ASCII.GetString(bad.ReadToEnd()));
        }

        using var good = new RawClient(server.Port);
        good.SendCommand("MGET", "a", "b");
        Assert.Equal("[1, 2]", good.ReadReply());
    }

    [Fact]
    public async Task Batched_fsync_sets_are_acknowledged_durable_and_read_back_after_a_restart()
    {
        await using var server = TestServer.Start(o => o with { Durability = Durability.Fsync });
        using (var client = new RawClient(server.Port))
        {
            client.Send(Pipeline([.. Enumerable.Range(0, 40).Select(i => new[] { "SET", $"k{i}", $"v{i}" })]));
            Assert.All(Enumerable.Range(0, 40).Select(_ => client.ReadReply()), reply => Assert.Equal("+OK", reply));
        }

        await server.RestartAsync(o => o with { Durability = Durability.Fsync });
        using var after = new RawClient(server.Port);
        after.SendCommand("MGET", "k0", "k39");
        Assert.Equal("[v0, v39]", after.ReadReply());
    }

    [Fact]
    public async Task Fsync_sets_of_many_connections_are_answered_in_order_after_their_group_commits_resumed_them_through_the_doorbell()
    {
        await using var server = TestServer.Start(o => o with { Durability = Durability.Fsync });
        Task[] clients = [.. Enumerable.Range(0, 8).Select(c => Task.Run(() =>
        {
            using var client = new RawClient(server.Port);
            for (int round = 0; round < 5; round++)
            {
                client.Send(Pipeline([.. Enumerable.Range(0, 20).Select(i => new[] { "SET", $"c{c}-{round}-{i}", $"v{i}" }), ["GET", $"c{c}-{round}-19"]]));
                Assert.All(Enumerable.Range(0, 20).Select(_ => client.ReadReply()), reply => Assert.Equal("+OK", reply));
                Assert.Equal("v19", client.ReadReply());
            }
        }))];
        await Task.WhenAll(clients).WaitAsync(TimeSpan.FromSeconds(60));

        Assert.NotNull(server.Server.DurableWaiters);
        // At most two group commits a round: one in flight when its SETs were appended, one that covers them.
        Assert.InRange(server.Server.DurableWaiters.Executed, 1, 2 * 8 * 5);
    }
}
