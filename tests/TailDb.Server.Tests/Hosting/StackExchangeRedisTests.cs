using StackExchange.Redis;

namespace TailDb.Server.Tests.Hosting;

/// <summary>The server as StackExchange.Redis sees it: a client nobody here wrote, with its own handshake.</summary>
public class StackExchangeRedisTests
{
    /// <summary>Timeouts past a loaded CI machine's first command (the client's own default is 5 s; one Kestrel run took 5.6 s).</summary>
    internal static ConfigurationOptions Config(TestServer server) => new()
    {
        EndPoints = { server.Endpoint },
        AbortOnConnectFail = true,
        ConnectTimeout = 10_000,
        SyncTimeout = 10_000,
        AsyncTimeout = 10_000,
        ClientName = "se-redis-test",
    };

    [Fact]
    public async Task Get_set_del_and_mget_round_trip()
    {
        await using var server = TestServer.Start();
        await using var redis = await ConnectionMultiplexer.ConnectAsync(Config(server));
        IDatabase db = redis.GetDatabase();

        Assert.True(await db.StringSetAsync("user:1", "alice"));
        Assert.True(await db.StringSetAsync("user:2", new byte[] { 0, 13, 10, 255 }));
        Assert.Equal("alice", (string?)await db.StringGetAsync("user:1"));
        Assert.Equal(new byte[] { 0, 13, 10, 255 }, (byte[]?)await db.StringGetAsync("user:2"));
        Assert.True((await db.StringGetAsync("absent")).IsNull);

        RedisValue[] values = await db.StringGetAsync(["user:1", "absent", "user:2"]);
        Assert.Equal("alice", (string?)values[0]);
        Assert.True(values[1].IsNull);
        Assert.Equal(2L, await db.KeyDeleteAsync(["user:1", "user:2", "absent"]));
        Assert.False(await db.KeyExistsAsync("user:1"));
    }

    [Fact]
    public async Task Set_when_not_exists_and_when_exists_follow_redis_semantics()
    {
        await using var server = TestServer.Start();
        await using var redis = await ConnectionMultiplexer.ConnectAsync(Config(server));
        IDatabase db = redis.GetDatabase();

        Assert.True(await db.StringSetAsync("k", "1", when: When.NotExists));
        Assert.False(await db.StringSetAsync("k", "2", when: When.NotExists));
        Assert.True(await db.StringSetAsync("k", "3", when: When.Exists));
        Assert.False(await db.StringSetAsync("other", "4", when: When.Exists));
        Assert.Equal("3", (string?)await db.StringGetAsync("k"));
        Assert.True((await db.StringGetAsync("other")).IsNull);
    }

    [Fact]
    public async Task A_thousand_pipelined_commands_come_back_in_order()
    {
        await using var server = TestServer.Start();
        await using var redis = await ConnectionMultiplexer.ConnectAsync(Config(server));
        IDatabase db = redis.GetDatabase();

        IBatch batch = db.CreateBatch();
        Task<bool>[] sets = Enumerable.Range(0, 1000).Select(i => batch.StringSetAsync($"p:{i}", $"v{i}")).ToArray();
        Task<RedisValue>[] gets = Enumerable.Range(0, 1000).Select(i => batch.StringGetAsync($"p:{i}")).ToArray();
        batch.Execute();
        Assert.All(await Task.WhenAll(sets), Assert.True);
        RedisValue[] values = await Task.WhenAll(gets);
        Assert.Equal(Enumerable.Range(0, 1000).Select(i => $"v{i}"), values.Select(v => (string)v!));
    }

    [Fact]
    public async Task Several_multiplexers_see_each_others_writes()
    {
        await using var server = TestServer.Start();
        var clients = new List<ConnectionMultiplexer>();
        try
        {
            for (int i = 0; i < 4; i++)
            {
                clients.Add(await ConnectionMultiplexer.ConnectAsync(Config(server)));
            }

            await Task.WhenAll(clients.Select((c, n) => Task.WhenAll(Enumerable.Range(0, 200).Select(i => c.GetDatabase().StringSetAsync($"m:{n}:{i}", $"{n}-{i}")))));
            for (int n = 0; n < clients.Count; n++)
            {
                IDatabase reader = clients[(n + 1) % clients.Count].GetDatabase();
                Assert.Equal($"{n}-199", (string?)await reader.StringGetAsync($"m:{n}:199"));
            }
        }
        finally
        {
            foreach (ConnectionMultiplexer c in clients)
            {
                await c.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task A_client_reconnects_after_a_server_restart_and_reads_what_was_acknowledged()
    {
        await using var server = TestServer.Start();
        ConfigurationOptions config = Config(server);
        config.AbortOnConnectFail = false;
        config.ReconnectRetryPolicy = new LinearRetry(100);
        await using var redis = await ConnectionMultiplexer.ConnectAsync(config);
        IDatabase db = redis.GetDatabase();
        Assert.True(await db.StringSetAsync("survivor", "before restart"));

        await server.RestartAsync();

        // The multiplexer notices the dropped socket and reconnects on its own; give it 20 s.
        string? value = null;
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (DateTime.UtcNow < deadline)
        {
            try
            {
                value = await db.StringGetAsync("survivor");
                break;
            }
            catch (Exception e) when (e is RedisConnectionException or RedisTimeoutException)
            {
                await Task.Delay(100);
            }
        }

        Assert.Equal("before restart", value);
        Assert.True(await db.StringSetAsync("after", "restart"));
    }

    [Fact]
    public async Task Client_setname_from_the_connection_string_is_accepted()
    {
        await using var server = TestServer.Start();
        await using var redis = await ConnectionMultiplexer.ConnectAsync(Config(server));
        RedisResult name = await redis.GetDatabase().ExecuteAsync("CLIENT", "GETNAME");
        Assert.Equal("se-redis-test", (string?)name);
    }
}
