namespace TailDb.Tests.Storage;

public sealed class GroupCommitTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void ConcurrentFsyncWritersShareFsyncs()
    {
        // A slow fsync makes writers queue behind the one in flight; the next leader's fsync must
        // cover all of them, so there are far fewer fsyncs than writes.
        var device = new FailingDevice { FsyncDelay = TimeSpan.FromMilliseconds(5) };
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync });
        int before = device.Fsyncs;
        const int writers = 8;
        const int perWriter = 25;
        var threads = Enumerable.Range(0, writers).Select(w => new Thread(() =>
        {
            for (int i = 0; i < perWriter; i++)
            {
                store.Put($"w{w}-{i}", new byte[16]);
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        int fsyncs = device.Fsyncs - before;
        Assert.InRange(fsyncs, 1, writers * perWriter / 2);
        Assert.Equal(writers * perWriter, store.CountKeysSlow());
    }

    [Fact]
    public void DurabilityNoneNeverFsyncsOnPut()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device });
        int before = device.Fsyncs;
        for (int i = 0; i < 50; i++)
        {
            store.Put($"k{i}", new byte[8]);
        }

        Assert.Equal(before, device.Fsyncs);
    }
}
