using StackExchange.Redis;
using TailDb.Server.Hosting;

namespace TailDb.Server.Tests.Hosting;

/// <summary>The same server behind Kestrel's transport (--transport kestrel): the connection logic is shared, the plumbing is not.</summary>
public class KestrelTransportTests
{
    private static TestServer StartKestrel(Func<ServerOptions, ServerOptions>? configure = null) =>
        TestServer.Start(o => (configure?.Invoke(o) ?? o) with { Transport = Transport.Kestrel });

    [Fact]
    public async Task Pipelined_commands_and_a_protocol_error_behave_as_over_sockets()
    {
        await using var server = StartKestrel();
        using var client = new RawClient(server.Port);
        client.Send([.. RawClient.Command("SET", "a", "1"), .. RawClient.Command("GET", "a"), .. "PING\r\n"u8.ToArray()]);
        Assert.Equal(["+OK", "1", "+PONG"], Enumerable.Range(0, 3).Select(_ => client.ReadReply()));

        using var bad = new RawClient(server.Port);
        bad.Send("*1\r\n$-7\r\n"u8.ToArray());
        Assert.Equal("-ERR Protocol error: invalid bulk length\r\n", System.Text.Encoding.ASCII.GetString(bad.ReadToEnd()));
        client.SendCommand("GET", "a");
        Assert.Equal("1", client.ReadReply());
    }

    [Fact]
    public async Task StackExchange_redis_round_trips()
    {
        await using var server = StartKestrel();
        await using var redis = await ConnectionMultiplexer.ConnectAsync(StackExchangeRedisTests.Config(server));
        Assert.True(await redis.GetDatabase().StringSetAsync("k", "v"));
        Assert.Equal("v", (string?)await redis.GetDatabase().StringGetAsync("k"));
    }

    [Fact]
    public async Task Max_clients_holds()
    {
        // Raw clients only: StackExchange.Redis opens as many sockets as its handshake needs (a retried
        // connect under load left one more counted, and the limit refused the test's own PING).
        await using var server = StartKestrel(o => o with { MaxClients = 2 });
        using var one = new RawClient(server.Port);
        using var two = new RawClient(server.Port);
        one.SendCommand("PING");
        Assert.Equal("+PONG", one.ReadReply());
        two.SendCommand("PING");
        Assert.Equal("+PONG", two.ReadReply());
        using var three = new RawClient(server.Port);
        Assert.Equal("-ERR max number of clients reached\r\n", System.Text.Encoding.ASCII.GetString(three.ReadToEnd()));
    }
}
