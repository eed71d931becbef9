using System.Text;

namespace TailDb.Tests.Storage;

public sealed class FaultTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void FailedWriteFaultsTheStoreAndLaterWritesAreRejected()
    {
        var device = new FailingDevice();
        var options = _dir.Options() with { Device = device };
        using (var store = TailDbStore.Open(options))
        {
            store.Put("before", "ok"u8);
            device.FailWrites = true;

            var first = Assert.Throws<TailDbFaultedException>(() => store.Put("during", "lost"u8));
            Assert.Contains(_dir.Path, first.Message, StringComparison.Ordinal);
            Assert.IsType<IOException>(first.InnerException);
            Assert.True(store.IsFaulted);

            // The device works again, but the store does not retry or pretend: still faulted.
            device.FailWrites = false;
            Assert.Throws<TailDbFaultedException>(() => store.Put("after", "x"u8));
            Assert.Throws<TailDbFaultedException>(() => store.Delete("before"));
            Assert.Equal("ok", Encoding.UTF8.GetString(store.Get("before")!));
            Assert.Null(store.Get("during"));
        }

        // The half-written record is a torn tail: cut off on reopen, earlier data intact.
        using var reopened = TailDbStore.Open(_dir.Options());
        Assert.Single(reopened.Recovery.TailTruncations);
        Assert.Equal("ok", Encoding.UTF8.GetString(reopened.Get("before")!));
        Assert.Null(reopened.Get("during"));
        reopened.Put("after", "fine"u8);
        Assert.Equal("fine", Encoding.UTF8.GetString(reopened.Get("after")!));
    }

    [Fact]
    public void FailedFsyncFaultsTheStoreWithNoSilentRetry()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync });
        store.Put("a", "1"u8);
        int fsyncs = device.Fsyncs;
        device.FailFsyncs = true;

        var error = Assert.Throws<TailDbFaultedException>(() => store.Put("b", "2"u8));
        Assert.Contains("fsync", error.Message, StringComparison.Ordinal);
        device.FailFsyncs = false;
        Assert.Throws<TailDbFaultedException>(() => store.Put("c", "3"u8));
        Assert.Equal(fsyncs, device.Fsyncs);
    }

    [Fact]
    public async Task FailedFsyncFaultsAsyncWritersToo()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync });
        device.FailFsyncs = true;
        await Assert.ThrowsAsync<TailDbFaultedException>(async () => await store.PutAsync("k"u8.ToArray(), "v"u8.ToArray()));
        await Assert.ThrowsAsync<TailDbFaultedException>(async () => await store.PutAsync("k2"u8.ToArray(), "v"u8.ToArray()));
    }
}
