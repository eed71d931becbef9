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
            stats.RecordLatency(connection, CommandKind.Get, 1_000 * (connection + 1));
            stats.RecordLatency(connection, CommandKind.Set, 5_000);
            stats.KeyspaceHit(connection);
            if (connection % 3 == 0)
            {
                stats.KeyspaceMiss(connection);
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
        stats.RecordLatency(1, CommandKind.Ping, 100);
        stats.RecordLatency(2, CommandKind.Ping, 100);
        long first = 0, second = 0;
        stats.ForEachLatency((_, h, _) => first = h.TotalCount);
        stats.ForEachLatency((_, h, _) => second = h.TotalCount);
        Assert.Equal((2, 2), (first, second));
    }
}
