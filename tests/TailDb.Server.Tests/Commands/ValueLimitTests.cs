using TailDb.Server.Tests.Diagnostics;
using TailDb.Server.Tests.Hosting;

namespace TailDb.Server.Tests.Commands;

/// <summary>
/// A value over the store's limit is the client's mistake: it gets an error reply and the
/// connection goes on, whichever path its command takes (batched, traced, conditional, MSET).
/// </summary>
[Collection(ServerEventsGroup.Name)]
public class ValueLimitTests
{
    private const string TooLarge = "-ERR value larger than the store's limit (8 bytes)";

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_plain_set_over_the_limit_is_refused_and_the_connection_serves_the_next_command(bool eventsOn)
    {
        using EventRecorder? listener = eventsOn ? new EventRecorder() : null;
        await using var server = TestServer.Start(o => o with { MaxValueBytes = 8 });
        using var client = new RawClient(server.Port);

        client.SendCommand("SET", "b", "longer than eight");
        Assert.StartsWith(TooLarge, client.ReadReply(), StringComparison.Ordinal);
        client.SendCommand("SET", "b", "short");
        Assert.Equal("+OK", client.ReadReply());
        client.SendCommand("GET", "b");
        Assert.Equal("short", client.ReadReply());
    }

    [Fact]
    public async Task A_pipeline_with_one_value_over_the_limit_answers_every_command_in_order_while_traced()
    {
        using var listener = new EventRecorder();
        await using var server = TestServer.Start(o => o with { MaxValueBytes = 8 });
        using var client = new RawClient(server.Port);
        client.Send([.. RawClient.Command("SET", "a", "1"), .. RawClient.Command("SET", "b", "longer than eight"), .. RawClient.Command("SET", "c", "3"), .. RawClient.Command("GET", "c")]);

        Assert.Equal("+OK", client.ReadReply());
        Assert.StartsWith(TooLarge, client.ReadReply(), StringComparison.Ordinal);
        Assert.Equal(["+OK", "3"], [client.ReadReply(), client.ReadReply()]);
    }

    [Fact]
    public async Task An_mset_with_one_value_over_the_limit_is_refused_whole_and_writes_none_of_its_keys()
    {
        await using var server = TestServer.Start(o => o with { MaxValueBytes = 8 });
        using var client = new RawClient(server.Port);

        client.SendCommand("MSET", "x", "1", "y", "longer than eight", "z", "3");
        Assert.StartsWith(TooLarge, client.ReadReply(), StringComparison.Ordinal);
        client.SendCommand("MGET", "x", "y", "z");
        Assert.Equal("[(nil), (nil), (nil)]", client.ReadReply());
    }
}
