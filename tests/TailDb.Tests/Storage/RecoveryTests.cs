using System.Buffers;
using System.Text;

namespace TailDb.Tests.Storage;

public sealed class RecoveryTests : IDisposable
{
    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private TailDbOptions Options() => _dir.Options() with { CacheCapacityBytes = 0 };

    private void Write(int keys, long segmentMaxBytes = 64L << 20)
    {
        using var store = TailDbStore.Open(Options() with { SegmentMaxBytes = segmentMaxBytes });
        for (int k = 0; k < keys; k++)
        {
            store.Put($"k{k}", Encoding.UTF8.GetBytes($"value-{k}"));
        }
    }

    [Fact]
    public void TornTailIsTruncatedAndReported()
    {
        Write(10);
        string segment = _dir.SegmentFiles().Last();
        long intact = new FileInfo(segment).Length;
        using (var file = File.OpenWrite(segment))
        {
            file.Seek(0, SeekOrigin.End);
            // The first 11 bytes of a record header: a write cut short by a crash.
            file.Write([1, 2, 3, 4, 5, 6, 7, 8, 3, 0, 0]);
        }

        using (var store = TailDbStore.Open(Options()))
        {
            TailTruncation cut = Assert.Single(store.Recovery.TailTruncations);
            Assert.Equal(intact, cut.Offset);
            Assert.Equal(11, cut.BytesDropped);
            Assert.Equal(intact, new FileInfo(segment).Length);
            Assert.Equal("value-9", Encoding.UTF8.GetString(store.Get("k9")!));
            store.Put("k10", "after"u8);
        }

        using var again = TailDbStore.Open(Options());
        Assert.False(again.Recovery.FoundDamage);
        Assert.Equal("after", Encoding.UTF8.GetString(again.Get("k10")!));
    }

    [Fact]
    public void LastRecordWithDamagedValueIsATornTail()
    {
        Write(10);
        string segment = _dir.SegmentFiles().Last();
        byte[] bytes = File.ReadAllBytes(segment);
        bytes[^1] ^= 0x40;
        File.WriteAllBytes(segment, bytes);

        using var store = TailDbStore.Open(Options());
        Assert.Single(store.Recovery.TailTruncations);
        Assert.Null(store.Get("k9"));
        Assert.Equal("value-8", Encoding.UTF8.GetString(store.Get("k8")!));
    }

    [Fact]
    public void DamagedValueInTheMiddleReadsAsCorruptAndIsNeverReturned()
    {
        Write(10);
        string segment = _dir.SegmentFiles().Last();
        byte[] bytes = File.ReadAllBytes(segment);
        int at = IndexOf(bytes, "value-4"u8);
        bytes[at + 6] = (byte)'X';
        File.WriteAllBytes(segment, bytes);

        using var store = TailDbStore.Open(Options());
        CorruptRecordInfo info = Assert.Single(store.Recovery.CorruptRecords);
        Assert.Contains("checksum", info.Reason, StringComparison.Ordinal);
        Assert.Empty(store.Recovery.TailTruncations);
        Assert.Equal(ReadStatus.Corrupt, store.TryGet("k4"u8, new ArrayBufferWriter<byte>()));
        Assert.Throws<TailDbCorruptionException>(() => store.Get("k4"));
        Assert.Equal("value-5", Encoding.UTF8.GetString(store.Get("k5")!));

        // A new write supersedes the damaged record.
        store.Put("k4", "fresh"u8);
        Assert.Equal("fresh", Encoding.UTF8.GetString(store.Get("k4")!));
    }

    [Fact]
    public void DamageFoundOnlyAtReadTimeIsReportedAsCorrupt()
    {
        Write(10);
        using var store = TailDbStore.Open(Options());
        string segment = _dir.SegmentFilesWithRecords().Last();
        using (var file = new FileStream(segment, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite))
        {
            byte[] bytes = new byte[file.Length];
            file.ReadExactly(bytes);
            int at = IndexOf(bytes, "value-2"u8);
            file.Position = at;
            file.WriteByte((byte)'W');
        }

        Assert.Equal(ReadStatus.Corrupt, store.TryGet("k2"u8, new ArrayBufferWriter<byte>()));
        Assert.Equal("value-3", Encoding.UTF8.GetString(store.Get("k3")!));
    }

    [Fact]
    public void DamagedHeaderBeforeIntactRecordsRefusesToOpenNamingTheFile()
    {
        Write(10);
        string segment = _dir.SegmentFiles().Last();
        byte[] bytes = File.ReadAllBytes(segment);
        int key = IndexOf(bytes, "k3"u8);
        bytes[key - 5] ^= 0x10; // inside the value-length field of k3's record
        File.WriteAllBytes(segment, bytes);

        var error = Assert.Throws<TailDbCorruptionException>(() => TailDbStore.Open(Options()));
        Assert.Contains(segment, error.Message, StringComparison.Ordinal);
        Assert.Contains("offset", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void InterruptedCompactionLeftoversAreRemovedOnOpen()
    {
        Write(10);
        File.WriteAllBytes(Path.Combine(_dir.Path, "00000009-0001.seg.tmp"), [1, 2, 3]);
        using var store = TailDbStore.Open(Options());
        Assert.Equal(1, store.Recovery.LeftoverFilesRemoved);
        Assert.Empty(Directory.GetFiles(_dir.Path, "*.tmp"));
        Assert.Equal("value-1", Encoding.UTF8.GetString(store.Get("k1")!));
    }

    [Fact]
    public void CompactedSegmentSupersedesInputsLeftByACrashBeforeTheirDeletion()
    {
        Write(40, segmentMaxBytes: 256);
        string[] inputs = _dir.SegmentFiles();
        string copies = Path.Combine(_dir.Path, "copies");
        Directory.CreateDirectory(copies);
        foreach (string f in inputs)
        {
            File.Copy(f, Path.Combine(copies, Path.GetFileName(f)));
        }

        using (var store = TailDbStore.Open(Options()))
        {
            store.Delete("k0");
            store.Compact();
        }

        // Put the old inputs back, as if the crash came right after the rename.
        foreach (string f in Directory.GetFiles(copies))
        {
            File.Copy(f, Path.Combine(_dir.Path, Path.GetFileName(f)), overwrite: true);
        }

        using var reopened = TailDbStore.Open(Options());
        Assert.True(reopened.Recovery.LeftoverFilesRemoved >= inputs.Length);
        Assert.Null(reopened.Get("k0"));
        Assert.Equal("value-39", Encoding.UTF8.GetString(reopened.Get("k39")!));
    }

    [Fact]
    public void ASpareSegmentLeftByACrashIsDeletedAndWritingGoesOnInTheNewestSegment()
    {
        Write(10);

        // What a crash leaves beside the log: the next segment file, made ahead of need, header only.
        string spare = Path.Combine(_dir.Path, "00000002-0000.seg");
        File.WriteAllBytes(spare, BitConverter.GetBytes(TailDb.Storage.RecordFormat.SegmentMagic));
        using (var store = TailDbStore.Open(Options()))
        {
            Assert.False(store.Recovery.FoundDamage);
            Assert.Equal(1, store.Recovery.LeftoverFilesRemoved);
            Assert.Equal(1, store.Recovery.Segments);
            store.Put("k10", "after"u8);
        }

        Assert.False(File.Exists(spare));
        using var again = TailDbStore.Open(Options());
        Assert.False(again.Recovery.FoundDamage);
        Assert.Equal("value-3", Encoding.UTF8.GetString(again.Get("k3")!));
        Assert.Equal("after", Encoding.UTF8.GetString(again.Get("k10")!));
    }

    [Fact]
    public void ASealLostToAPowerLossEndsTheLogAtTheSegmentItWasSealing()
    {
        string[] segments = WriteFixedWidthKeys(24);
        Assert.True(segments.Length >= 3, "the test needs three segments");
        string sealing = segments[^2];
        string newest = segments[^1];
        List<string> droppedKeys = KeysIn(newest);
        Assert.NotEmpty(droppedKeys);

        // The rotation's seal was written but its fsync, after the writer lock, never finished.
        CutSeal(sealing);
        long newestBytes = new FileInfo(newest).Length;

        using (var store = TailDbStore.Open(Options()))
        {
            TailTruncation cut = Assert.Single(store.Recovery.TailTruncations);
            Assert.Equal(newestBytes - TailDb.Storage.RecordFormat.FileHeaderSize, cut.BytesDropped);
            for (int k = 0; k < 24; k++)
            {
                string key = $"key-{k:D3}";
                byte[]? value = store.Get(key);
                if (droppedKeys.Contains(key))
                {
                    Assert.Null(value);
                }
                else
                {
                    Assert.Equal($"value-{k:D3}", Encoding.UTF8.GetString(value!));
                }
            }

            store.Put("key-999", "after"u8);
        }

        Assert.False(File.Exists(newest));
        using var again = TailDbStore.Open(Options());
        Assert.False(again.Recovery.FoundDamage);
        Assert.Equal("after", Encoding.UTF8.GetString(again.Get("key-999")!));
    }

    [Fact]
    public void AnOlderSegmentWithoutItsSealStillRefusesToOpen()
    {
        string[] segments = WriteFixedWidthKeys(24);
        Assert.True(segments.Length >= 3, "the test needs three segments");
        CutSeal(segments[^3]);

        var error = Assert.Throws<TailDbCorruptionException>(() => TailDbStore.Open(Options()));
        Assert.Contains(segments[^3], error.Message, StringComparison.Ordinal);
    }

    /// <summary>Writes keys key-000.. with values value-000.. into 256-byte segments; returns the segment files.</summary>
    private string[] WriteFixedWidthKeys(int keys)
    {
        using (var store = TailDbStore.Open(Options() with { SegmentMaxBytes = 256 }))
        {
            for (int k = 0; k < keys; k++)
            {
                store.Put($"key-{k:D3}", Encoding.UTF8.GetBytes($"value-{k:D3}"));
            }
        }

        return _dir.SegmentFiles();
    }

    private static void CutSeal(string segment)
    {
        using var file = new FileStream(segment, FileMode.Open, FileAccess.Write);
        file.SetLength(file.Length - TailDb.Storage.RecordFormat.SealSize);
    }

    private static List<string> KeysIn(string segment)
    {
        string text = Encoding.UTF8.GetString(File.ReadAllBytes(segment));
        return [.. System.Text.RegularExpressions.Regex.Matches(text, "key-[0-9]{3}").Select(m => m.Value)];
    }

    private static int IndexOf(byte[] haystack, ReadOnlySpan<byte> needle)
    {
        int at = haystack.AsSpan().IndexOf(needle);
        Assert.True(at >= 0);
        return at;
    }
}
