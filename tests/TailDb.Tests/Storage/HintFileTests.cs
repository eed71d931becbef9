using System.Buffers.Binary;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class HintFileTests : IDisposable
{
    // 40,000 entries of 36 B: a 1.4 MB hint file, so entries straddle the loader's 1 MiB chunks.
    private const int Keys = 40_000;
    private const int EntrySize = 20 + 16;
    private const long SegmentLength = 1L << 40;

    private readonly TestDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static byte[] Key(int i)
    {
        var key = new byte[16];
        BinaryPrimitives.WriteInt32LittleEndian(key, i);
        BinaryPrimitives.WriteInt32LittleEndian(key.AsSpan(12), ~i);
        return key;
    }

    private static long Offset(int i) => 8 + (100L * i);

    private string WriteHint()
    {
        string path = Path.Combine(_dir.Path, "00000001-0001.hint");
        using (var writer = new HintFile.Writer(FileStorageDevice.Instance.Open(path, FileMode.CreateNew, writable: true)))
        {
            for (int i = 0; i < Keys; i++)
            {
                writer.Add(Key(i), Offset(i), i % 500);
            }

            writer.Complete(SegmentLength);
        }

        Assert.True(new FileInfo(path).Length > HintFile.ChunkBytes, "the hint file must span more than one read");
        return path;
    }

    private static (bool Ok, List<(byte[] Key, long Offset, int ValueLength)> Applied) Load(string path, long segmentLength = SegmentLength)
    {
        var applied = new List<(byte[], long, int)>();
        using IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false);
        bool ok = HintFile.TryLoad(file, segmentLength, (key, offset, valueLength) => applied.Add((key.ToArray(), offset, valueLength)));
        return (ok, applied);
    }

    [Fact]
    public void LoadReturnsEveryEntryInOrderAcrossChunkBoundaries()
    {
        (bool ok, var applied) = Load(WriteHint());

        Assert.True(ok);
        Assert.Equal(Keys, applied.Count);
        for (int i = 0; i < Keys; i++)
        {
            Assert.Equal(Key(i), applied[i].Key);
            Assert.Equal(Offset(i), applied[i].Offset);
            Assert.Equal(i % 500, applied[i].ValueLength);
        }
    }

    [Theory]
    [InlineData(0)] // first entry
    [InlineData(29_126)] // the entry that straddles the first 1 MiB read
    [InlineData(Keys - 1)] // last entry, in the second read
    public void ADamagedEntryAnywhereAppliesNothing(int entry)
    {
        string path = WriteHint();
        byte[] bytes = File.ReadAllBytes(path);
        bytes[20 + (entry * EntrySize) + EntrySize - 1] ^= 0x01; // last key byte
        File.WriteAllBytes(path, bytes);

        (bool ok, var applied) = Load(path);

        Assert.False(ok);
        Assert.Empty(applied);
    }

    [Fact]
    public void LoadingOnceHandsOverEveryEntryBeforeTheDamageAndThenFails()
    {
        string path = WriteHint();
        byte[] bytes = File.ReadAllBytes(path);
        bytes[20 + (35_000 * EntrySize) + EntrySize - 1] ^= 0x01; // an entry in the second read
        File.WriteAllBytes(path, bytes);

        var applied = new List<long>();
        using IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false);
        bool ok = HintFile.TryLoadOnce(file, SegmentLength, (key, offset, valueLength) => applied.Add(offset));

        Assert.False(ok);
        Assert.Equal(35_000, applied.Count);
        Assert.Equal(Offset(34_999), applied[^1]);
    }

    [Fact]
    public void LoadingOnceAnIntactHintHandsOverEveryEntry()
    {
        var applied = new List<long>();
        using IStorageFile file = FileStorageDevice.Instance.Open(WriteHint(), FileMode.Open, writable: false);

        Assert.True(HintFile.TryLoadOnce(file, SegmentLength, (key, offset, valueLength) => applied.Add(offset)));
        Assert.Equal(Keys, applied.Count);
    }

    [Fact]
    public void AHintCutShortOrForADifferentSegmentLengthAppliesNothing()
    {
        string path = WriteHint();
        Assert.False(Load(path, SegmentLength - 1).Ok);

        byte[] bytes = File.ReadAllBytes(path);
        File.WriteAllBytes(path, bytes[..^5]);
        (bool ok, var applied) = Load(path);
        Assert.False(ok);
        Assert.Empty(applied);
    }

    private TailDbOptions CompactedStore()
    {
        TailDbOptions options = _dir.Options() with { ExpectedKeyCount = Keys, CacheCapacityBytes = 0 };
        using (var store = TailDbStore.Open(options))
        {
            for (int i = 0; i < Keys; i++)
            {
                store.Put(Key(i), BitConverter.GetBytes(i * 7L));
            }

            store.Compact();
        }

        Assert.True(new FileInfo(Directory.GetFiles(_dir.Path, "*.hint").Single()).Length > HintFile.ChunkBytes);
        return options;
    }

    [Fact]
    public void ReopenThroughAHintSpanningSeveralReadsFindsEveryValue()
    {
        TailDbOptions options = CompactedStore();
        using var reopened = TailDbStore.Open(options);
        Assert.Equal(1, reopened.Recovery.HintFilesUsed);
        Assert.Equal(Keys, reopened.Recovery.Records);
        Assert.Equal(Keys, reopened.CountKeysSlow());
        for (int i = 0; i < Keys; i++)
        {
            Assert.Equal(i * 7L, BitConverter.ToInt64(reopened.Get(Key(i))!));
        }
    }

    [Fact]
    public void ReopenWithAHintDamagedInItsSecondReadScansTheSegmentInstead()
    {
        TailDbOptions options = CompactedStore();
        string hint = Directory.GetFiles(_dir.Path, "*.hint").Single();
        byte[] bytes = File.ReadAllBytes(hint);
        bytes[20 + (35_000 * EntrySize) + 8] ^= 0x01; // value length of an entry past the first 1 MiB
        File.WriteAllBytes(hint, bytes);

        using var reopened = TailDbStore.Open(options);

        Assert.Equal(0, reopened.Recovery.HintFilesUsed);
        Assert.Equal(Keys, reopened.Recovery.Records); // more would mean part of the hint was applied before the scan
        Assert.Equal(Keys, reopened.CountKeysSlow());
        for (int i = 0; i < Keys; i++)
        {
            Assert.Equal(i * 7L, BitConverter.ToInt64(reopened.Get(Key(i))!));
        }
    }
}
