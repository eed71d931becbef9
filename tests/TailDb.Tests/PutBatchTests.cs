using System.Text;
using TailDb.Tests.Storage;

namespace TailDb.Tests;

/// <summary><see cref="TailDbStore.PutBatchAsync"/>: order, conditions, one write per run, durability, and a failure midway.</summary>
public sealed class PutBatchTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static BatchPut Put(string key, string value, PutCondition condition = PutCondition.Always) =>
        new(Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes(value), condition);

    private static string? Read(TailDbStore store, string key) => store.Get(key) is { } bytes ? Encoding.UTF8.GetString(bytes) : null;

    /// <summary>An Fsync-mode store whose first segment's fsyncs wait at <paramref name="device"/>'s gate.</summary>
    private TailDbStore OpenWithActiveSegmentFsyncsGated(GatedDevice device)
    {
        var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync });
        device.Close(Path.GetFileName(_dir.SegmentFiles()[0]));
        return store;
    }

    [Fact]
    public async Task PutsOfOneKeyApplyInBatchOrderAndSurviveReopenInThatOrder()
    {
        BatchPut[] puts = [Put("k", "1"), Put("other", "x"), Put("k", "2"), Put("k", "3")];
        var statuses = new PutStatus[puts.Length];
        using (var store = TailDbStore.Open(_dir.Options()))
        {
            await store.PutBatchAsync(puts, statuses);
            Assert.All(statuses, s => Assert.Equal(PutStatus.Written, s));
            Assert.Equal("3", Read(store, "k"));
            Assert.Equal("x", Read(store, "other"));
        }

        using var reopened = TailDbStore.Open(_dir.Options());
        Assert.Equal("3", Read(reopened, "k"));
        Assert.Equal(2, reopened.CountKeysSlow());
    }

    [Fact]
    public async Task AConditionSeesThePutsBeforeItInTheSameBatch()
    {
        using var store = TailDbStore.Open(_dir.Options());
        store.Put("present", "old"u8);
        BatchPut[] puts =
        [
            Put("new", "a", PutCondition.IfAbsent),
            Put("new", "b", PutCondition.IfAbsent),
            Put("missing", "c", PutCondition.IfPresent),
            Put("new", "d", PutCondition.IfPresent),
            Put("present", "e", PutCondition.IfAbsent),
            Put("present", "f", PutCondition.IfPresent),
        ];
        var statuses = new PutStatus[puts.Length];
        await store.PutBatchAsync(puts, statuses);

        Assert.Equal(
            [PutStatus.Written, PutStatus.ConditionNotMet, PutStatus.ConditionNotMet, PutStatus.Written, PutStatus.ConditionNotMet, PutStatus.Written],
            statuses);
        Assert.Equal("d", Read(store, "new"));
        Assert.Null(Read(store, "missing"));
        Assert.Equal("f", Read(store, "present"));
    }

    [Fact]
    public async Task InUpdateModeABatchLeavesEachCachedKeyAtItsLastValueInPlaceOrDropsIt()
    {
        using var store = TailDbStore.Open(_dir.Options() with { CacheWrites = CacheWrites.Update });
        foreach (string key in new[] { "k1", "k2", "k3" })
        {
            store.Put(key, "v0"u8);
            Assert.Equal("v0", Read(store, key)); // the read fills the cache
        }

        BatchPut[] puts =
        [
            Put("k1", "11"),
            Put("k2", "longer"),
            Put("k1", "22"),
            Put("k3", "33", PutCondition.IfPresent),
            Put("k4", "44", PutCondition.IfAbsent),
            Put("k1", "33"),
        ];
        var statuses = new PutStatus[puts.Length];
        await store.PutBatchAsync(puts, statuses);

        Assert.All(statuses, s => Assert.Equal(PutStatus.Written, s));
        var destination = new System.Buffers.ArrayBufferWriter<byte>();
        Assert.Equal(ReadStatus.Hit, store.TryGet("k1"u8, destination)); // same length: overwritten in place, still cached
        Assert.Equal("33", Encoding.UTF8.GetString(destination.WrittenSpan));
        destination.ResetWrittenCount();
        Assert.Equal(ReadStatus.Miss, store.TryGet("k2"u8, destination)); // another length: dropped, read from the log
        Assert.Equal("longer", Encoding.UTF8.GetString(destination.WrittenSpan));
        Assert.Equal("33", Read(store, "k3"));
        Assert.Equal("44", Read(store, "k4"));
    }

    [Fact]
    public async Task ABatchAfterAHintedReopenFindsTheKeysTheHintLoaded()
    {
        using (var store = TailDbStore.Open(_dir.Options()))
        {
            for (int i = 0; i < 100; i++)
            {
                store.Put($"k{i}", "v"u8);
            }

            store.Compact();
        }

        // The reopened directory hashes with the hint's seed; the batch hashes its keys before the lock with the same one.
        using var reopened = TailDbStore.Open(_dir.Options());
        Assert.Equal(1, reopened.Recovery.HintFilesUsed);
        BatchPut[] puts = [Put("k7", "present", PutCondition.IfPresent), Put("k8", "absent?", PutCondition.IfAbsent), Put("k100", "new", PutCondition.IfAbsent), Put("k9", "x")];
        var statuses = new PutStatus[puts.Length];
        await reopened.PutBatchAsync(puts, statuses);

        Assert.Equal([PutStatus.Written, PutStatus.ConditionNotMet, PutStatus.Written, PutStatus.Written], statuses);
        Assert.Equal("present", Read(reopened, "k7"));
        Assert.Equal("v", Read(reopened, "k8"));
        Assert.Equal(101, reopened.CountKeysSlow());
    }

    [Fact]
    public async Task AnInvalidPutIsSkippedAndTheOthersAreWritten()
    {
        using var store = TailDbStore.Open(_dir.Options() with { MaxValueBytes = 8 });
        BatchPut[] puts = [Put("a", "1"), new(ReadOnlyMemory<byte>.Empty, "x"u8.ToArray()), Put("b", "too long for eight"), Put("c", "3")];
        var statuses = new PutStatus[puts.Length];
        await store.PutBatchAsync(puts, statuses);

        Assert.Equal([PutStatus.Written, PutStatus.Invalid, PutStatus.Invalid, PutStatus.Written], statuses);
        Assert.Equal("1", Read(store, "a"));
        Assert.Null(Read(store, "b"));
        Assert.Equal("3", Read(store, "c"));
        Assert.False(store.IsFaulted);
    }

    [Fact]
    public async Task ABatchWithinOneSegmentIsOneWrite()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device });
        BatchPut[] puts = [.. Enumerable.Range(0, 16).Select(i => Put($"key{i}", new string('v', 256)))];
        int before = device.Writes;
        await store.PutBatchAsync(puts, new PutStatus[puts.Length]);

        Assert.Equal(before + 1, device.Writes);
        Assert.Equal(new string('v', 256), Read(store, "key15"));
    }

    [Fact]
    public async Task ABatchAllocatesNothingWithDurabilityNoneAndInvalidatingWrites()
    {
        using var store = TailDbStore.Open(_dir.Options() with { CacheWrites = CacheWrites.Invalidate, SegmentMaxBytes = 64L << 20 });
        BatchPut[] puts = [.. Enumerable.Range(0, 16).Select(i => Put($"key{i}", new string('v', 256)))];
        var statuses = new PutStatus[puts.Length];
        for (int i = 0; i < 100; i++)
        {
            await store.PutBatchAsync(puts, statuses);
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            ValueTask done = store.PutBatchAsync(puts, statuses);
            Assert.True(done.IsCompletedSuccessfully);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    [Fact]
    public async Task ABatchSplitAtARotationIsReadBackWhole()
    {
        // 119-byte records, 1 KiB segments: the batch's 20 puts span three segments.
        using (var store = TailDbStore.Open(_dir.Options() with { SegmentMaxBytes = 1024 }))
        {
            BatchPut[] puts = [.. Enumerable.Range(0, 20).Select(i => Put($"k{i:00}", new string((char)('a' + i), 100)))];
            var statuses = new PutStatus[puts.Length];
            await store.PutBatchAsync(puts, statuses);
            Assert.All(statuses, s => Assert.Equal(PutStatus.Written, s));
            Assert.True(_dir.SegmentFilesWithRecords().Length >= 3);
        }

        using var reopened = TailDbStore.Open(_dir.Options() with { SegmentMaxBytes = 1024 });
        Assert.Empty(reopened.Recovery.CorruptRecords);
        for (int i = 0; i < 20; i++)
        {
            Assert.Equal(new string((char)('a' + i), 100), Read(reopened, $"k{i:00}"));
        }
    }

    [Fact]
    public async Task AWriteFailingMidwayLeavesThePutsBeforeItWrittenAndFaultsTheRest()
    {
        var device = new FailingDevice();
        var options = _dir.Options() with { Device = device, SegmentMaxBytes = 1024 };
        var statuses = new PutStatus[12];
        using (var store = TailDbStore.Open(options))
        {
            // The spare made at open is where the batch's second run goes, after the rotation.
            device.FailWritesToFile = Path.GetFileName(_dir.SegmentFiles()[^1]);
            BatchPut[] puts = [.. Enumerable.Range(0, 12).Select(i => Put($"k{i:00}", new string('v', 100)))];
            await store.PutBatchAsync(puts, statuses);

            // 8 records of 119 bytes fit the first segment (1024 - 8 header - 24 seal).
            Assert.Equal([.. Enumerable.Repeat(PutStatus.Written, 8), .. Enumerable.Repeat(PutStatus.Faulted, 4)], statuses);
            Assert.True(store.IsFaulted);
            Assert.Contains("write to", store.FaultMessage, StringComparison.Ordinal);
            Assert.Equal(new string('v', 100), Read(store, "k07"));
            Assert.Null(Read(store, "k08"));

            // A faulted store answers a batch with statuses, not an exception.
            var later = new PutStatus[1];
            await store.PutBatchAsync([Put("after", "x")], later);
            Assert.Equal(PutStatus.Faulted, later[0]);
        }

        // The written puts survive; the failed write's records may too (the device lands half its
        // bytes, two whole records): they were never acknowledged, so either is correct.
        using var reopened = TailDbStore.Open(_dir.Options() with { SegmentMaxBytes = 1024 });
        Assert.Empty(reopened.Recovery.CorruptRecords);
        for (int i = 0; i < 8; i++)
        {
            Assert.Equal(new string('v', 100), Read(reopened, $"k{i:00}"));
        }
    }

    [Fact]
    public async Task AnFsyncBatchCompletesOnlyAfterItsFsync()
    {
        using var device = new GatedDevice();
        using TailDbStore store = OpenWithActiveSegmentFsyncsGated(device);
        var statuses = new PutStatus[2];
        Task batch = Task.Run(async () => await store.PutBatchAsync([Put("a", "1"), Put("b", "2")], statuses));

        Assert.True(device.WaitUntilHeld(1), "the batch's group commit never reached its fsync");
        Assert.False(batch.IsCompleted);
        device.Open();
        await batch;
        Assert.Equal([PutStatus.Written, PutStatus.Written], statuses);
    }

    [Fact]
    public async Task AnFsyncBatchReturnsToItsCallerWhileItsGroupCommitWaitsForTheFsync()
    {
        using var device = new GatedDevice();
        using TailDbStore store = OpenWithActiveSegmentFsyncsGated(device);
        var statuses = new PutStatus[1];

        // The caller gets its task back with the fsync held at the gate: the leader's fsync runs
        // on another thread, as a server's event loop needs. (Before, the call itself blocked in
        // the fsync until the gate opened.)
        ValueTask batch = default, single = default;
        using var returned = new CountdownEvent(2);
        var caller = new Thread(() =>
        {
            batch = store.PutBatchAsync([Put("a", "1")], statuses);
            returned.Signal();
            single = store.PutAsync("b"u8.ToArray(), "2"u8.ToArray());
            returned.Signal();
        });
        caller.Start();
        Assert.True(device.WaitUntilHeld(1), "the batch's group commit never reached its fsync");
        bool returnedWhileHeld = returned.Wait(TimeSpan.FromSeconds(30));
        device.Open();
        caller.Join();
        Assert.True(returnedWhileHeld, "PutBatchAsync/PutAsync did not return while the fsync was held: the leader fsyncs on its caller's thread");

        await batch;
        await single;
        Assert.Equal(PutStatus.Written, statuses[0]);
    }

    [Fact]
    public async Task AnAcknowledgedFsyncBatchSurvivesPowerLossWhereANoneBatchDoesNot()
    {
        foreach (Durability durability in new[] { Durability.Fsync, Durability.None })
        {
            using var dir = new TestDirectory();
            var device = new PowerLossDevice();
            var store = TailDbStore.Open(dir.Options() with { Device = device, Durability = durability });
            await store.PutBatchAsync([Put("a", "1"), Put("b", "2"), Put("a", "3")], new PutStatus[3]);
            device.PowerOff();
            store.Dispose();
            device.Restore();

            using var reopened = TailDbStore.Open(dir.Options());
            string?[] found = [Read(reopened, "a"), Read(reopened, "b")];
            Assert.Equal(durability == Durability.Fsync ? ["3", "2"] : [null, null], found);
        }
    }

    [Fact]
    public async Task AFailedFsyncFaultsTheBatchsTask()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync });
        device.FailFsyncs = true;
        var statuses = new PutStatus[1];
        await Assert.ThrowsAsync<TailDbFaultedException>(async () => await store.PutBatchAsync([Put("a", "1")], statuses));
        Assert.True(store.IsFaulted);
    }
}
