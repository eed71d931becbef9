namespace TailDb.Tests.Storage;

/// <summary>
/// A segment rotation under the writer lock is a handle swap: the sealed segment's fsync runs
/// after the lock is released, and the next file was made ahead of need. The device's fsync of
/// the sealed segment is held at a gate, so what may and may not finish meanwhile is decided by
/// the code, not by timing.
/// </summary>
public sealed class SegmentRotationTests : IDisposable
{
    private const string FirstSegment = "00000001-0000.seg";

    // Records of 1,018 bytes in 4 KiB segments: three fit, the fourth Put rotates, and the new
    // segment holds three more without rotating again.
    private static readonly byte[] Value = new byte[1000];

    private readonly TestDirectory _dir = new();
    private readonly GatedDevice _device = new();

    public void Dispose()
    {
        _device.Open();
        _device.Dispose();
        _dir.Dispose();
    }

    private TailDbStore Open(Durability durability) =>
        TailDbStore.Open(_dir.Options() with { Device = _device, Durability = durability, SegmentMaxBytes = 4096, CacheCapacityBytes = 0 });

    [Fact]
    public async Task AWriterIsNotHeldUpByTheFsyncOfTheSegmentItsRotationSealed()
    {
        using var store = Open(Durability.None);
        _device.Close(FirstSegment);
        try
        {
            Task writes = Task.Run(() =>
            {
                for (int i = 0; i < 5; i++)
                {
                    store.Put($"k{i}", Value);
                }
            });

            Assert.True(_device.WaitUntilHeld(1), "nothing fsynced the sealed segment");

            // The seal's fsync is held at the gate, and every write returned, the rotating one too.
            Assert.True(await Completes(writes), "a writer waited for the sealed segment's fsync");
            store.Put("k5", Value);
            Assert.Equal(1, _device.Held);
            Assert.Equal(0, store.SlowRotations);
            Assert.Equal(6, store.CountKeysSlow());
        }
        finally
        {
            _device.Open();
        }
    }

    [Fact]
    public async Task AnFsyncPutAfterARotationIsAcknowledgedOnlyOnceTheSegmentItSealedIsDurable()
    {
        using var store = Open(Durability.Fsync);
        for (int i = 0; i < 3; i++)
        {
            store.Put($"k{i}", Value);
        }

        _device.Close(FirstSegment);
        Task rotating, other;
        try
        {
            rotating = Task.Run(() => store.Put("k3", Value));

            // The preparer's fsync of the sealed segment and the group commit of k3, which must
            // make that segment durable before k3's own, both wait at the gate.
            Assert.True(_device.WaitUntilHeld(2), "the group commit did not fsync the sealed segment first");
            Assert.False(rotating.IsCompleted);

            // The writer lock is free meanwhile: another Put appends (its key is visible) and waits its turn.
            other = Task.Run(() => store.Put("k4", Value));
            Assert.True(SpinWait.SpinUntil(() => store.ContainsKey("k4"u8), TimeSpan.FromMinutes(1)), "a Put could not append while the seal's fsync was held");
            Assert.False(rotating.IsCompleted || other.IsCompleted, "a Put was acknowledged before the segment before it was durable");
        }
        finally
        {
            _device.Open();
        }

        Assert.True(await Completes(Task.WhenAll(rotating, other)), "the Puts were not acknowledged once the gate opened");
        Assert.Equal(0, store.SlowRotations);
    }

    /// <summary>Whether <paramref name="task"/> completes (a minute is the hang guard, not a measurement).</summary>
    private static async Task<bool> Completes(Task task)
    {
        try
        {
            await task.WaitAsync(TimeSpan.FromMinutes(1));
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }
}
