using System.Text;
using TailDb.LoadTest.FanOut;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Tests.Harness;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.FanOut;

public sealed class KetamaRingTests
{
    internal static readonly byte[][] Keys = WorkloadPlan.Create(new WorkloadOptions { Keys = 30_000, Threads = 1, Rate = null }).Keys;

    [Fact]
    public void Every_shard_gets_about_its_share_of_the_keys()
    {
        var ring = new KetamaRing(Twemproxy.ShardNames(3));
        int[] counts = new int[3];
        foreach (byte[] key in Keys)
        {
            counts[ring.ShardOf(key)]++;
        }

        // 160 points per server leave ketama's shares within a few points of a third.
        Assert.All(counts, c => Assert.InRange(c / (double)Keys.Length, 0.25, 0.42));
    }

    [Fact]
    public void Adding_a_shard_moves_keys_only_onto_the_new_shard()
    {
        var three = new KetamaRing(Twemproxy.ShardNames(3));
        var four = new KetamaRing(Twemproxy.ShardNames(4));
        int moved = 0;
        foreach (byte[] key in Keys)
        {
            int before = three.ShardOf(key), after = four.ShardOf(key);
            if (before != after)
            {
                Assert.Equal(3, after);
                moved++;
            }
        }

        Assert.InRange(moved / (double)Keys.Length, 0.15, 0.35);
    }
}

/// <summary>The client's ring against twemproxy's own: the same keys on the same shards.</summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class TwemproxyTests : IAsyncLifetime
{
    private const int Shards = 3;
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-twemproxy-");
    private readonly List<TailDbServerProcess> _servers = [];
    private readonly List<TargetAddress> _addresses = [];

    public async Task InitializeAsync()
    {
        GcMode mode = GcMode.Resolve("workstation")[0];
        for (int s = 0; s < Shards; s++)
        {
            _servers.Add(TailDbServerProcess.Start(mode, new WorkloadOptions(), Directory.CreateDirectory(Path.Combine(_scratch.FullName, $"shard{s}")).FullName, port: null));
        }

        foreach (TailDbServerProcess server in _servers)
        {
            _addresses.Add(await server.WaitListeningAsync(TimeSpan.FromSeconds(60), CancellationToken.None));
        }
    }

    public async Task DisposeAsync()
    {
        foreach (TailDbServerProcess server in _servers)
        {
            await server.StopAsync(TimeSpan.FromSeconds(20));
            server.Dispose();
        }

        _scratch.Delete(recursive: true);
    }

    [NutcrackerFact]
    public async Task Twemproxy_puts_every_key_on_the_shard_the_clients_ring_names()
    {
        using Twemproxy proxy = await Twemproxy.StartAsync(_addresses, _scratch.FullName, 5000, CancellationToken.None);
        var ring = new KetamaRing(Twemproxy.ShardNames(Shards));
        var perShard = new int[Shards];
        // Every 200th key: neighbouring keys differ in their last bytes, which twemproxy's 32-bit fnv1a_64
        // moves only a little along the ring (the first 150 keys all land on one shard).
        foreach (byte[] key in KetamaRingTests.Keys.Where((_, i) => i % 200 == 0))
        {
            string name = Encoding.ASCII.GetString(key), value = "v-" + name;
            Assert.Equal("OK", RespControl.Command(proxy.Address, 5000, "SET", name, value));
            int shard = ring.ShardOf(key);
            perShard[shard]++;
            Assert.Equal(value, RespControl.Command(_addresses[shard], 5000, "GET", name));
            Assert.Equal(value, RespControl.Command(proxy.Address, 5000, "GET", name));
        }

        Assert.All(perShard, n => Assert.True(n > 0, "a shard got none of the keys"));
    }

    [Fact]
    public void The_config_names_each_server_so_the_ring_does_not_depend_on_its_port()
    {
        string config = Twemproxy.Config(4242, [new TargetAddress(TargetKind.Endpoint, "127.0.0.1", 7001), new TargetAddress(TargetKind.Endpoint, "127.0.0.1", 7002)], 1000);
        Assert.Contains("listen: 127.0.0.1:4242", config, StringComparison.Ordinal);
        Assert.Contains("distribution: ketama", config, StringComparison.Ordinal);
        Assert.Contains("hash: fnv1a_64", config, StringComparison.Ordinal);
        Assert.Contains("- 127.0.0.1:7001:1 shard0", config, StringComparison.Ordinal);
        Assert.Contains("- 127.0.0.1:7002:1 shard1", config, StringComparison.Ordinal);
    }
}
