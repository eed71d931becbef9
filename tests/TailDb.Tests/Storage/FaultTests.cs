using System.Buffers;
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

    [Fact]
    public void ReadErrorIsAStatusForThatReadAndLeavesTheStoreUsable()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, CacheCapacityBytes = 0 });
        store.Put("a", "1"u8);
        store.Put("b", "2"u8);
        FailReadsOf(store, device, "a");

        var buffer = new ArrayBufferWriter<byte>();
        Assert.Equal(ReadStatus.IoError, store.TryGet("a"u8, buffer));
        Assert.Equal(0, buffer.WrittenCount);
        Assert.Equal(ReadStatus.IoError, store.TryGet("a", out byte[]? value));
        Assert.Null(value);

        // Only that read failed: the store is not faulted, other keys read and writes go on.
        Assert.False(store.IsFaulted);
        Assert.Equal(ReadStatus.Miss, store.TryGet("b", out value));
        Assert.Equal("2", Encoding.UTF8.GetString(value!));
        store.Put("c", "3"u8);
        Assert.Equal("3", Encoding.UTF8.GetString(store.Get("c")!));

        device.FailReadsAt = null;
        Assert.Equal(ReadStatus.Miss, store.TryGet("a"u8, buffer));
        Assert.Equal("1", Encoding.UTF8.GetString(buffer.WrittenSpan));
    }

    [Fact]
    public void GetHasNoStatusSoAReadErrorIsATailDbReadExceptionNotARawIOException()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, CacheCapacityBytes = 0 });
        store.Put("a", "1"u8);
        FailReadsOf(store, device, "a");

        var error = Assert.Throws<TailDbReadException>(() => store.Get("a"));
        Assert.Contains(_dir.Path, error.Message, StringComparison.Ordinal);
        Assert.Contains("only this read failed", error.Message, StringComparison.Ordinal);
        Assert.False(store.IsFaulted);
    }

    [Fact]
    public void AReadErrorIsNotCachedSoTheNextReadGoesBackToTheDevice()
    {
        var device = new FailingDevice();
        using (var first = TailDbStore.Open(_dir.Options() with { Device = device, CacheCapacityBytes = 0 }))
        {
            first.Put("a", "1"u8);
            FailReadsOf(first, device, "a");
        }

        // Reopened with a cache, cold (open scans the segment, so the bad record is armed after it):
        // the failed read caches nothing, the next one reads and caches.
        long bad = device.FailReadsAt!.Value;
        device.FailReadsAt = null;
        using var store = TailDbStore.Open(_dir.Options() with { Device = device });
        device.FailReadsAt = bad;
        Assert.Equal(ReadStatus.IoError, store.TryGet("a", out _));
        device.FailReadsAt = null;
        Assert.Equal(ReadStatus.Miss, store.TryGet("a", out byte[]? value));
        Assert.Equal("1", Encoding.UTF8.GetString(value!));
        Assert.Equal(ReadStatus.Hit, store.TryGet("a", out _));
    }

    [Fact]
    public async Task AsyncReadErrorIsAStatusForThatReadOnly()
    {
        var device = new FailingDevice();
        using var store = TailDbStore.Open(_dir.Options() with { Device = device, CacheCapacityBytes = 0 });
        store.Put("a", "1"u8);
        store.Put("b", "2"u8);
        FailReadsOf(store, device, "a");

        GetResult failed = await store.TryGetAsync("a"u8.ToArray());
        Assert.Equal(ReadStatus.IoError, failed.Status);
        Assert.Null(failed.Value);
        await Assert.ThrowsAsync<TailDbReadException>(async () => await store.GetAsync("a"u8.ToArray()));
        GetResult other = await store.TryGetAsync("b"u8.ToArray());
        Assert.Equal(ReadStatus.Miss, other.Status);
        Assert.Equal("2", Encoding.UTF8.GetString(other.Value!));

        device.FailReadsAt = null;
        Assert.Equal("1", Encoding.UTF8.GetString((await store.GetAsync("a"u8.ToArray()))!));
        Assert.False(store.IsFaulted);
    }

    [Fact]
    public void SyncedDataStillReadsAfterAnFsyncFailureFaultedTheStore()
    {
        var device = new FailingDevice();
        using (var store = TailDbStore.Open(_dir.Options() with { Device = device, Durability = Durability.Fsync, CacheCapacityBytes = 0 }))
        {
            store.Put("synced", "yes"u8);
            device.FailFsyncs = true;
            Assert.Throws<TailDbFaultedException>(() => store.Put("unsynced", "no"u8));
            Assert.Equal("yes", Encoding.UTF8.GetString(store.Get("synced")!));
        }

        using var reopened = TailDbStore.Open(_dir.Options());
        Assert.Equal("yes", Encoding.UTF8.GetString(reopened.Get("synced")!));
    }

    public static TheoryData<string> CompactionFaults => ["hint write", "hint rename", "segment write"];

    [Theory]
    [MemberData(nameof(CompactionFaults))]
    public void FailedCompactionLeavesTheOldSegmentsAuthoritativeAndTheDirectoryOpenable(string fault)
    {
        var device = new FailingDevice();
        var options = _dir.Options() with { Device = device, SegmentMaxBytes = 4096, CacheCapacityBytes = 0 };
        var expected = new Dictionary<string, string?>();
        using (var store = TailDbStore.Open(options))
        {
            for (int i = 0; i < 400; i++)
            {
                string key = $"k{i % 60}";
                if (i % 7 == 0)
                {
                    store.Delete(key);
                    expected[key] = null;
                }
                else
                {
                    string value = $"v{i}-{new string('x', i % 50)}";
                    store.Put(key, Encoding.UTF8.GetBytes(value));
                    expected[key] = value;
                }
            }

            string[] segmentsBefore = _dir.SegmentFiles();
            Assert.True(segmentsBefore.Length > 3, "the test needs several sealed segments");
            device.FailHintWrites = fault == "hint write";
            device.FailHintRenames = fault == "hint rename";
            device.FailCompactionWrites = fault == "segment write";

            Assert.ThrowsAny<IOException>(() => store.Compact());
            Assert.DoesNotContain(Directory.GetFiles(_dir.Path), f => f.EndsWith(".tmp", StringComparison.Ordinal));
            AssertHolds(store, expected);

            // The old segments still serve reads and take writes; a later compaction succeeds.
            device.FailHintWrites = device.FailHintRenames = device.FailCompactionWrites = false;
            store.Put("after", "fault"u8);
            expected["after"] = "fault";
            store.Compact();
            AssertHolds(store, expected);
        }

        using var reopened = TailDbStore.Open(_dir.Options());
        Assert.Empty(reopened.Recovery.CorruptRecords);
        AssertHolds(reopened, expected);
    }

    [Theory]
    [MemberData(nameof(CompactionFaults))]
    public void CrashAfterAFailedCompactionReopensWithEveryValue(string fault)
    {
        var device = new FailingDevice();
        var expected = new Dictionary<string, string?>();
        using (var store = TailDbStore.Open(_dir.Options() with { Device = device, SegmentMaxBytes = 4096 }))
        {
            for (int i = 0; i < 300; i++)
            {
                string value = $"v{i}-{new string('y', i % 40)}";
                store.Put($"k{i % 45}", Encoding.UTF8.GetBytes(value));
                expected[$"k{i % 45}"] = value;
            }

            device.FailHintWrites = fault == "hint write";
            device.FailHintRenames = fault == "hint rename";
            device.FailCompactionWrites = fault == "segment write";
            Assert.ThrowsAny<IOException>(() => store.Compact());
        }

        // A leftover temporary file (as if cleanup had also failed) is ignored and removed on open.
        File.WriteAllBytes(Path.Combine(_dir.Path, "99999999-0009.hint.tmp"), [1, 2, 3]);
        using var reopened = TailDbStore.Open(_dir.Options());
        AssertHolds(reopened, expected);
    }

    /// <summary>Reads the key once (the cache must not hold it) to learn its record's offset, then makes reads there fail.</summary>
    internal static void FailReadsOf(TailDbStore store, FailingDevice device, string key)
    {
        Assert.Equal(ReadStatus.Miss, store.TryGet(key, out _));
        device.FailReadsAt = device.LastReadOffset;
    }

    private static void AssertHolds(TailDbStore store, Dictionary<string, string?> expected)
    {
        foreach ((string key, string? value) in expected)
        {
            string? actual = store.Get(key) is { } bytes ? Encoding.UTF8.GetString(bytes) : null;
            Assert.True(actual == value, $"{key}: read '{actual}', expected '{value}'");
        }
    }
}
