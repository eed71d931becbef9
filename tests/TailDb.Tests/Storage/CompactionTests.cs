using System.Text;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class CompactionTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private TailDbOptions Options() => _dir.Options() with { SegmentMaxBytes = 8192, CacheCapacityBytes = 0 };

    [Fact]
    public void CompactionKeepsOnlyLatestValuesAndReclaimsSpace()
    {
        using (var store = TailDbStore.Open(Options()))
        {
            for (int round = 0; round < 20; round++)
            {
                for (int k = 0; k < 30; k++)
                {
                    store.Put($"k{k}", Encoding.UTF8.GetBytes($"k{k}-round{round}-{new string('p', 50)}"));
                }
            }

            for (int k = 0; k < 5; k++)
            {
                store.Delete($"k{k}");
            }

            // Written bytes: the active segment and the spare may be prefilled with zeros ahead of the writer.
            long before = _dir.SegmentFiles().Sum(TestDirectory.WrittenBytes);
            CompactionResult result = store.Compact();
            long after = _dir.SegmentFiles().Sum(TestDirectory.WrittenBytes);

            Assert.Equal(25, result.LiveRecords);
            Assert.True(result.BytesReclaimed > 0);
            Assert.True(after < before / 10, $"{before} bytes before, {after} after");
            AssertLatest(store);
        }

        // Left: the compacted segment (with its hint file) and the fresh, empty active one.
        Assert.Equal(2, _dir.SegmentFiles().Length);
        Assert.Single(Directory.GetFiles(_dir.Path, "*.hint"));
        using var reopened = TailDbStore.Open(Options());
        Assert.Equal(1, reopened.Recovery.HintFilesUsed);
        AssertLatest(reopened);
    }

    [Fact]
    public void RepeatedCompactionsAndWritesInBetweenKeepTheLatestValues()
    {
        using (var store = TailDbStore.Open(Options()))
        {
            for (int round = 0; round < 20; round++)
            {
                for (int k = 0; k < 30; k++)
                {
                    store.Put($"k{k}", Encoding.UTF8.GetBytes($"k{k}-round{round}-{new string('p', 50)}"));
                }

                if (round % 5 == 4)
                {
                    store.Compact();
                }
            }

            for (int k = 0; k < 5; k++)
            {
                store.Delete($"k{k}");
            }

            store.Compact();
            AssertLatest(store);
        }

        using var reopened = TailDbStore.Open(Options());
        AssertLatest(reopened);
    }

    [Fact]
    public void ReopenUsesHintsAndFallsBackToScanningWhenAHintIsDamaged()
    {
        using (var store = TailDbStore.Open(Options()))
        {
            for (int k = 0; k < 30; k++)
            {
                store.Put($"k{k}", Encoding.UTF8.GetBytes($"k{k}-round19-{new string('p', 50)}"));
            }

            store.Compact();
        }

        string hint = Directory.GetFiles(_dir.Path, "*.hint").Single();
        byte[] bytes = File.ReadAllBytes(hint);
        bytes[^3] ^= 0xFF;
        File.WriteAllBytes(hint, bytes);

        using var reopened = TailDbStore.Open(Options());
        Assert.Equal(0, reopened.Recovery.HintFilesUsed);
        Assert.Equal(30, reopened.CountKeysSlow());
        Assert.Equal("k3-round19-" + new string('p', 50), Encoding.UTF8.GetString(reopened.Get("k3")!));
    }

    [Fact]
    public async Task WritesDuringCompactionAreNeverLost()
    {
        using var store = TailDbStore.Open(Options());
        for (int k = 0; k < 200; k++)
        {
            store.Put($"k{k}", Encoding.UTF8.GetBytes("old"));
        }

        using var stop = new CancellationTokenSource();
        var compactor = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                store.Compact();
            }
        });
        for (int k = 0; k < 200; k++)
        {
            store.Put($"k{k}", Encoding.UTF8.GetBytes($"new{k}"));
            Assert.Equal($"new{k}", Encoding.UTF8.GetString(store.Get($"k{k}")!));
        }

        stop.Cancel();
        await compactor;
        store.Compact();
        for (int k = 0; k < 200; k++)
        {
            Assert.Equal($"new{k}", Encoding.UTF8.GetString(store.Get($"k{k}")!));
        }
    }

    [Fact]
    public async Task MissesRacingCompactionAlwaysReadTheValueNeverAnError()
    {
        // No cache: every read goes to a segment file that compaction may be retiring under it.
        using var store = TailDbStore.Open(Options());
        const int Keys = 300;
        for (int k = 0; k < Keys; k++)
        {
            store.Put($"k{k}", Encoding.UTF8.GetBytes($"value{k}"));
        }

        // Runs until five compactions have retired segments under the readers (fsyncs are slow on a busy
        // machine), and the readers have read enough to mean something: on a loaded box the five
        // compactions once finished before a reader task was even scheduled.
        using var stop = new CancellationTokenSource();
        int compactions = 0;
        long reads = 0;
        var compactor = Task.Run(async () =>
        {
            for (; compactions < 5 || Interlocked.Read(ref reads) <= 100; compactions++)
            {
                store.Put("churn", new byte[64]);
                store.Compact();
                await Task.Yield();
            }

            stop.Cancel();
        });
        var readers = Enumerable.Range(0, 2).Select(r => Task.Run(async () =>
        {
            for (int i = r; !stop.IsCancellationRequested; i++)
            {
                int k = i % Keys;
                byte[]? value = i % 2 == 0 ? store.Get($"k{k}") : await store.GetAsync(Encoding.UTF8.GetBytes($"k{k}"));
                Assert.Equal($"value{k}", Encoding.UTF8.GetString(value!));
                Interlocked.Increment(ref reads);
            }
        })).ToList();

        await Task.WhenAll(readers.Append(compactor));
        Assert.True(compactions >= 5, $"{compactions} compactions");
        Assert.True(reads > 100, $"only {reads} reads ran");
    }

    [Fact]
    public void CompactionReportsItsLongestWriterLockHold()
    {
        using var store = TailDbStore.Open(Options());
        for (int k = 0; k < 3000; k++)
        {
            store.Put($"k{k}", new byte[16]);
        }

        CompactionResult result = store.Compact();

        Assert.Equal(3000, result.LiveRecords);
        Assert.True(result.LongestWriterLockHold > TimeSpan.Zero);
    }

    [LinuxFact]
    public void CompactionCopiesAtLowPriorityByDefaultAndReportsWhatItGot()
    {
        CompactionResult low = CompactFreshStore(Options());
        CompactionResult normal = CompactFreshStore(Options() with { CompactionPriority = CompactionPriority.Normal });

        Assert.Equal(CompactionPriority.Low, low.Priority);
        Assert.Equal(CompactionPriority.Normal, normal.Priority);
        Assert.Equal(low.LiveRecords, normal.LiveRecords);
    }

    [Fact]
    public void ABudgetSmallerThanTheDataMakesTheCopyWaitForIt()
    {
        const int budget = 1 << 20;
        CompactionResult paced = CompactFreshStore(Options() with { CompactionBytesPerSecond = budget }, keys: 1000, valueBytes: 300);
        CompactionResult unpaced = CompactFreshStore(Options() with { CompactionBytesPerSecond = 0 }, keys: 1000, valueBytes: 300);

        // ~300 KB of live records, each read and written once at 1 MiB/s: over half a second of
        // budget. Only a lower bound is asserted, which a loaded machine (it only slows the copy)
        // cannot break: the limiter starts no chunk before the chunks charged before it are paid
        // for, less its capped credit; the last chunk is left for whoever charges next, and a
        // sleep is rounded down to whole milliseconds. Unpaced, the copy takes tens of milliseconds
        // on an idle machine, so without pacing this fails.
        long live = paced.BytesAfter - RecordFormat.FileHeaderSize - RecordFormat.SealSize;
        TimeSpan least = TimeSpan.FromSeconds(((2.0 * live) - PacedFile.ChunkBytes) / budget) - IoRateLimiter.MaxCredit - TimeSpan.FromMilliseconds(1);
        Assert.True(paced.Copying >= least, $"{live} live bytes read and written in {paced.Copying.TotalMilliseconds:0} ms; the budget allows no less than {least.TotalMilliseconds:0} ms");

        // The time reported as waiting for budget is part of the copy, and there is none without a
        // budget. It may be zero when paced: a copy that load slows below the budget never waits.
        Assert.InRange(paced.Throttled, TimeSpan.Zero, paced.Copying);
        Assert.Equal(TimeSpan.Zero, unpaced.Throttled);
    }

    [Fact]
    public void TheOutputIsPushedToTheDeviceInRangesNotLeftToOneFsync()
    {
        var device = new FailingDevice();
        CompactFreshStore(Options() with { Device = device, CompactionSyncBytes = 64 << 10 }, keys: 1000, valueBytes: 300);
        int paced = device.Writebacks;

        var firstDesign = new FailingDevice();
        CompactFreshStore(Options() with { Device = firstDesign, CompactionSyncBytes = 64 << 10, Upkeep = UpkeepMode.OnRequest }, keys: 1000, valueBytes: 300);

        Assert.True(paced >= 4, $"{paced} writebacks");
        Assert.Equal(0, firstDesign.Writebacks);
    }

    [Fact]
    public void ALargeInputIsCutDownInStepsBeforeItIsDeleted()
    {
        var device = new FailingDevice();
        TailDbOptions options = _dir.Options() with { Device = device, CacheCapacityBytes = 0 };
        using (var store = TailDbStore.Open(options))
        {
            var value = new byte[1000];
            for (int k = 0; k < 3000; k++)
            {
                store.Put($"k{k}", value); // ~3 MB in one segment
            }

            store.Compact();
            Assert.True(device.Truncations >= 2, $"{device.Truncations} truncations");

            // The compacted segment, the empty active one, and the spare compaction made for the next rotation.
            Assert.Equal(3, _dir.SegmentFiles().Length);
        }

        using var reopened = TailDbStore.Open(options);
        Assert.Equal(3000, reopened.CountKeysSlow());
    }

    [Fact]
    public void AnInputLeftHalfCutByACrashDuringDeletionIsDeletedOnOpen()
    {
        using (var store = TailDbStore.Open(Options()))
        {
            WriteRounds(store);
            store.Compact();
        }

        // What a crash between two cutting steps leaves: an early input, shortened mid-record.
        string leftover = Path.Combine(_dir.Path, "00000001-0000.seg");
        File.WriteAllBytes(leftover, [.. BitConverter.GetBytes(TailDb.Storage.RecordFormat.SegmentMagic), .. new byte[37]]);

        using var reopened = TailDbStore.Open(Options());
        AssertLatest(reopened);
        Assert.False(File.Exists(leftover));
    }

    private static CompactionResult CompactFreshStore(TailDbOptions options, int keys = 30, int valueBytes = 50)
    {
        using var dir = new TestDirectory();
        using var store = TailDbStore.Open(options with { Directory = dir.Path });
        for (int round = 0; round < 2; round++)
        {
            for (int k = 0; k < keys; k++)
            {
                store.Put($"k{k}", new byte[valueBytes]);
            }
        }

        return store.Compact();
    }

    private static void WriteRounds(TailDbStore store)
    {
        for (int round = 0; round < 20; round++)
        {
            for (int k = 0; k < 30; k++)
            {
                store.Put($"k{k}", Encoding.UTF8.GetBytes($"k{k}-round{round}-{new string('p', 50)}"));
            }
        }

        for (int k = 0; k < 5; k++)
        {
            store.Delete($"k{k}");
        }
    }

    private static void AssertLatest(TailDbStore store)
    {
        for (int k = 0; k < 30; k++)
        {
            byte[]? value = store.Get($"k{k}");
            if (k < 5)
            {
                Assert.Null(value);
            }
            else
            {
                Assert.Equal($"k{k}-round19-{new string('p', 50)}", Encoding.UTF8.GetString(value!));
            }
        }
    }

    [Fact]
    public void CompactingAnUntouchedCompactedSegmentDoesNothing()
    {
        using var store = TailDbStore.Open(Options());
        for (int k = 0; k < 30; k++)
        {
            store.Put($"k{k}", Encoding.UTF8.GetBytes($"v{k}"));
        }

        Assert.Equal(30, store.Compact().LiveRecords);
        string[] files = _dir.SegmentFiles();
        Assert.Equal(0, store.Compact().SegmentsCompacted);
        Assert.Equal(files, _dir.SegmentFiles());

        // One overwrite makes the compacted segment worth rewriting again.
        store.Put("k1", "new"u8);
        CompactionResult again = store.Compact();
        Assert.Equal(2, again.SegmentsCompacted);
        Assert.Equal(30, again.LiveRecords);
        Assert.Equal("new", Encoding.UTF8.GetString(store.Get("k1")!));
    }
}
