using TailDb.Storage;

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
    public async Task AsyncWritersAppendedDuringAnFsyncAreMadeDurableByTheOneFsyncAfterIt()
    {
        // The first Put leads an fsync; the others append while it runs, so it does not cover
        // them: one more fsync covers all eight, not one each.
        var device = new FailingDevice();
        using var gate = new GatedDevice(device);
        using var store = TailDbStore.Open(_dir.Options() with { Device = gate, Durability = Durability.Fsync });
        HoldTheActiveSegmentsFsyncs(gate);
        int before = device.Fsyncs;
        Task first = store.PutAsync("first"u8.ToArray(), new byte[16]).AsTask();
        WaitForAnFsyncInFlight(gate);
        Task[] later = [.. Enumerable.Range(0, 8).Select(i => store.PutAsync(System.Text.Encoding.UTF8.GetBytes($"later{i}"), new byte[16]).AsTask())];
        gate.Open();

        await Task.WhenAll(later).WaitAsync(TimeSpan.FromSeconds(30));
        await first;

        // 2: the leader's and the one after it (the spare the preparer makes at open may add its own fsync).
        Assert.InRange(device.Fsyncs - before, 2, 3);
        Assert.Equal(9, store.CountKeysSlow());
    }

    /// <param name="throughAResumeScheduler">The fsync on the store's flusher thread and the writers resumed through a scheduler, as in the server.</param>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AFailedFsyncWakesTheWritersQueuedBehindItWithTheStoresFault(bool throughAResumeScheduler)
    {
        using var scheduler = throughAResumeScheduler ? new OneThreadScheduler() : null;
        var device = new FailingDevice();
        using var gate = new GatedDevice(device);
        using var store = TailDbStore.Open(_dir.Options() with { Device = gate, Durability = Durability.Fsync, DurableWaitersScheduler = scheduler });
        HoldTheActiveSegmentsFsyncs(gate);
        Task first = store.PutAsync("first"u8.ToArray(), new byte[16]).AsTask();
        WaitForAnFsyncInFlight(gate);
        device.FailFsyncs = true;
        Task later = store.PutAsync("later"u8.ToArray(), new byte[16]).AsTask();
        gate.Open();

        await Assert.ThrowsAsync<TailDbFaultedException>(() => first.WaitAsync(TimeSpan.FromSeconds(30)));
        await Assert.ThrowsAsync<TailDbFaultedException>(() => later.WaitAsync(TimeSpan.FromSeconds(30)));
    }

    /// <summary>A fresh store's active segment is its lowest-numbered (the spare it prepares is numbered after it, and its fsyncs pass).</summary>
    private void HoldTheActiveSegmentsFsyncs(GatedDevice gate) => gate.Close(Path.GetFileName(_dir.SegmentFiles()[0]));

    /// <summary>Waits (never a fixed delay: a busy machine stretches those) until the first Put's fsync is held at the gate.</summary>
    private static void WaitForAnFsyncInFlight(GatedDevice gate) => Assert.True(gate.WaitUntilHeld(1), "no fsync of the active segment began within a minute");

    [Fact]
    public async Task WithAResumeSchedulerAllAsyncWritersResumeOnItInOneTaskPerFsync()
    {
        // The writers queue behind a slow fsync; each resumes on the scheduler's thread (not the
        // pool's, not the fsync's), and the scheduler gets one task per fsync, not one per writer.
        using var scheduler = new OneThreadScheduler();
        var device = new FailingDevice { FsyncDelay = TimeSpan.FromMilliseconds(100) };
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync, DurableWaitersScheduler = scheduler });
        int before = device.Fsyncs;

        async Task<int> PutThenThread(int i)
        {
            await store.PutAsync(System.Text.Encoding.UTF8.GetBytes($"k{i}"), new byte[16]).ConfigureAwait(false);
            return Environment.CurrentManagedThreadId;
        }

        Task<int>[] writers = [.. Enumerable.Range(0, 16).Select(PutThenThread)];
        int[] threads = await Task.WhenAll(writers).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.All(threads, t => Assert.Equal(scheduler.ThreadId, t));
        Assert.InRange(scheduler.Queued, 1, device.Fsyncs - before);
        Assert.Equal(16, store.CountKeysSlow());
    }

    [Fact]
    public async Task WithAResumeSchedulerThatRefusesTasksTheWritersStillResume()
    {
        var scheduler = new OneThreadScheduler();
        scheduler.Dispose();
        using var store = TailDbStore.Open(_dir.Options() with { Durability = Durability.Fsync, DurableWaitersScheduler = scheduler });

        await store.PutAsync("k"u8.ToArray(), new byte[8]).AsTask().WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(new byte[8], store.Get("k"));
    }

    [Fact]
    public void WithAResumeSchedulerSyncWritersStillLeadTheirOwnFsyncs()
    {
        using var scheduler = new OneThreadScheduler();
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync, DurableWaitersScheduler = scheduler });
        int before = device.Fsyncs;
        store.Put("sync", new byte[8]);

        Assert.Equal(before + 1, device.Fsyncs);
        Assert.Equal(0, scheduler.Queued);
    }

    [Fact]
    public void ALeaderWhoseSegmentWasSealedAndClosedMeanwhileDoesNotFaultTheStore()
    {
        // A leader takes the active segment, loses its CPU, and meanwhile compaction seals it,
        // fsyncs the seal and closes the file: that fsync covered the leader's records.
        var fault = new StoreFault(_dir.Path);
        using SegmentWriter writer = OpenWriter(fault);
        AppendOne(writer);
        (_, Segment active, _) = writer.FlushTarget();
        lock (writer.WriteLock)
        {
            writer.SealActiveLocked();
        }

        writer.Prepare();
        Assert.True(active.SealDurable);
        active.Dispose();

        writer.MakeDurable(active);
        Assert.False(fault.IsFaulted);
    }

    [Fact]
    public void AFailedFsyncOfAnUnsealedSegmentFaultsTheStore()
    {
        var fault = new StoreFault(_dir.Path);
        using SegmentWriter writer = OpenWriter(fault);
        AppendOne(writer);
        (_, Segment active, _) = writer.FlushTarget();
        active.Dispose();

        Assert.Throws<TailDbFaultedException>(() => writer.MakeDurable(active));
        Assert.True(fault.IsFaulted);
    }

    private SegmentWriter OpenWriter(StoreFault fault)
    {
        Segment first = SegmentWriter.CreateSegment(FileStorageDevice.Instance, _dir.Path, id: 1, generation: 0, number: 1, durable: true);
        var writer = new SegmentWriter(FileStorageDevice.Instance, _dir.Path, _dir.Options(), fault, SegmentSet.Empty.With([first], []), lastNumber: 1);
        writer.StartPreparing();
        return writer;
    }

    private static void AppendOne(SegmentWriter writer)
    {
        byte[] record = new byte[RecordFormat.RecordSize(1, 1)];
        RecordFormat.Write(record, "k"u8, "v"u8, tombstone: false);
        lock (writer.WriteLock)
        {
            writer.AppendLocked(record, keyLength: 1, valueLength: 1);
        }
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
