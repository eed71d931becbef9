using TailDb.Server.Commands;
using TailDb.Server.Hosting;

namespace TailDb.Server.Tests.Hosting;

/// <summary>The striped INFO counters: what connections record into their own stripes, INFO reads summed.</summary>
public class ServerStatsTests
{
    [Fact]
    public void Counts_recorded_by_many_connections_are_summed_over_their_stripes()
    {
        var stats = new ServerStats();
        for (long connection = 0; connection < 37; connection++)
        {
            stats.RecordLatency(connection, CommandKind.Get, 1_000 * (connection + 1), 1);
            stats.RecordLatency(connection, CommandKind.Set, 5_000, 1);
            stats.AddKeyspace(connection, hits: 1, misses: 0);
            if (connection % 3 == 0)
            {
                stats.AddKeyspace(connection, hits: 0, misses: 1);
            }
        }

        Assert.Equal(74, stats.CommandsProcessed);
        Assert.Equal(37, stats.KeyspaceHits);
        Assert.Equal(13, stats.KeyspaceMisses);
        Assert.Equal(1_000L * 37 * 38 / 2, stats.SumNanoseconds(CommandKind.Get));

        var seen = new Dictionary<CommandKind, (long Count, long Max, long Sum)>();
        stats.ForEachLatency((kind, h, sum) => seen[kind] = (h.TotalCount, h.GetValueAtPercentile(100), sum));
        Assert.Equal([CommandKind.Get, CommandKind.Set], seen.Keys.Order());
        Assert.Equal(37, seen[CommandKind.Get].Count);
        Assert.InRange(seen[CommandKind.Get].Max, 36_900, 37_100);
        Assert.Equal((37L, 5_000L * 37), (seen[CommandKind.Set].Count, seen[CommandKind.Set].Sum));
    }

    [Fact]
    public void A_second_read_reports_the_same_counts_not_twice_them()
    {
        var stats = new ServerStats();
        stats.RecordLatency(1, CommandKind.Ping, 100, 1);
        stats.RecordLatency(2, CommandKind.Ping, 100, 1);
        long first = 0, second = 0;
        stats.ForEachLatency((_, h, _) => first = h.TotalCount);
        stats.ForEachLatency((_, h, _) => second = h.TotalCount);
        Assert.Equal((2, 2), (first, second));
    }

    [Fact]
    public void A_run_recorded_once_counts_every_command_in_it()
    {
        var stats = new ServerStats();
        stats.RecordLatency(3, CommandKind.Get, 2_000, 16);
        var seen = new Dictionary<CommandKind, (long Count, long Sum)>();
        stats.ForEachLatency((kind, h, sum) => seen[kind] = (h.TotalCount, sum));
        Assert.Equal((16L, 32_000L), seen[CommandKind.Get]);
        Assert.Equal(16, stats.CommandsProcessed);
    }

    [Fact]
    public async Task Info_in_a_pipeline_reports_the_commands_before_it_and_a_later_read_the_rest()
    {
        await using var server = TestServer.Start();
        using var client = new RawClient(server.Port);
        client.Send([.. RawClient.Command("SET", "k", "v"), .. RawClient.Command("GET", "k"), .. RawClient.Command("GET", "k"), .. RawClient.Command("INFO", "commandstats"), .. RawClient.Command("GET", "k")]);
        Assert.Equal("+OK", client.ReadReply());
        Assert.Equal("v", client.ReadReply());
        Assert.Equal("v", client.ReadReply());
        string info = client.ReadReply();
        Assert.Contains("cmdstat_set:calls=1,", info, StringComparison.Ordinal);
        Assert.Contains("cmdstat_get:calls=2,", info, StringComparison.Ordinal);
        Assert.Equal("v", client.ReadReply());
        client.SendCommand("INFO", "commandstats");
        info = client.ReadReply();
        Assert.Contains("cmdstat_get:calls=3,", info, StringComparison.Ordinal);
        Assert.Contains("cmdstat_info:calls=1,", info, StringComparison.Ordinal);
    }
}
