using System.Buffers.Binary;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class HintFileTests : IDisposable
{
    // 40,000 entries of 40 B: a 1.6 MB hint file, so entries straddle the loader's 1 MiB chunks.
    private const int Keys = 40_000;
    private const int HeaderSize = 36;
    private const int EntrySize = 24 + 16;
    private const long SegmentLength = 1L << 40;
    private const ulong Seed = 0x5EED_0000_1234_5678;

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
        using (var writer = new HintFile.Writer(FileStorageDevice.Instance.Open(path, FileMode.CreateNew, writable: true), Seed))
        {
            for (int i = 0; i < Keys; i++)
            {
                writer.Add(Key(i), KeyHasher.Hash(Key(i), Seed), Offset(i), i % 500);
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
        bool ok = HintFile.TryLoad(file, segmentLength, Seed, (key, hash, offset, valueLength) => applied.Add((key.ToArray(), offset, valueLength)));
        return (ok, applied);
    }

    private static List<int> Hashes(string path, ulong seed)
    {
        var hashes = new List<int>();
        using IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false);
        Assert.True(HintFile.TryLoadOnce(file, SegmentLength, seed, (key, hash, offset, valueLength) => hashes.Add(hash)));
        return hashes;
    }

    /// <summary>The same entries in version 1's layout (no seed, no hashes): what stores wrote before version 2.</summary>
    private string WriteVersion1Hint()
    {
        string path = Path.Combine(_dir.Path, "00000001-0001.hint");
        using var bytes = new MemoryStream();
        Span<byte> header = stackalloc byte[20];
        BinaryPrimitives.WriteUInt64LittleEndian(header, 0x3154_4E49_4842_4454); // "TDBHINT1"
        BinaryPrimitives.WriteInt64LittleEndian(header[8..], SegmentLength);
        BinaryPrimitives.WriteUInt32LittleEndian(header[16..], Crc32C.Compute(header[..16]));
        bytes.Write(header);
        var entry = new byte[20 + 16];
        for (int i = 0; i < Keys; i++)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(entry.AsSpan(4), 16);
            BinaryPrimitives.WriteUInt32LittleEndian(entry.AsSpan(8), (uint)(i % 500));
            BinaryPrimitives.WriteInt64LittleEndian(entry.AsSpan(12), Offset(i));
            Key(i).CopyTo(entry.AsSpan(20));
            BinaryPrimitives.WriteUInt32LittleEndian(entry, Crc32C.Compute(entry.AsSpan(4)));
            bytes.Write(entry);
        }

        File.WriteAllBytes(path, bytes.ToArray());
        return path;
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
    [InlineData(26_214)] // the entry that straddles the first 1 MiB read (36 + 26,214 x 40 + 40 > 36 + 1 MiB)
    [InlineData(Keys - 1)] // last entry, in the second read
    public void ADamagedEntryAnywhereAppliesNothing(int entry)
    {
        string path = WriteHint();
        byte[] bytes = File.ReadAllBytes(path);
        bytes[HeaderSize + (entry * EntrySize) + EntrySize - 1] ^= 0x01; // last key byte
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
        bytes[HeaderSize + (35_000 * EntrySize) + EntrySize - 1] ^= 0x01; // an entry in the second read
        File.WriteAllBytes(path, bytes);

        var applied = new List<long>();
        using IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false);
        bool ok = HintFile.TryLoadOnce(file, SegmentLength, Seed, (key, hash, offset, valueLength) => applied.Add(offset));

        Assert.False(ok);
        Assert.Equal(35_000, applied.Count);
        Assert.Equal(Offset(34_999), applied[^1]);
    }

    [Fact]
    public void LoadingOnceAnIntactHintHandsOverEveryEntry()
    {
        var applied = new List<long>();
        using IStorageFile file = FileStorageDevice.Instance.Open(WriteHint(), FileMode.Open, writable: false);

        Assert.True(HintFile.TryLoadOnce(file, SegmentLength, Seed, (key, hash, offset, valueLength) => applied.Add(offset)));
        Assert.Equal(Keys, applied.Count);
    }

    [Fact]
    public void AVersion2HintHandsOverTheHashesItWasWrittenWithAndRehashesUnderAnotherSeed()
    {
        string path = WriteHint();
        const ulong other = Seed ^ 0xFFFF;

        List<int> stored = Hashes(path, Seed);
        List<int> rehashed = Hashes(path, other);

        Assert.Equal(Enumerable.Range(0, Keys).Select(i => KeyHasher.Hash(Key(i), Seed)), stored);
        Assert.Equal(Enumerable.Range(0, Keys).Select(i => KeyHasher.Hash(Key(i), other)), rehashed);
        Assert.NotEqual(stored, rehashed);
    }

    [Fact]
    public void TheHeaderCountsTheEntriesAndSaysWhetherTheyCameInHashOrder()
    {
        string unsorted = WriteHint(); // keys in index order: their hashes are not
        string sorted = Path.Combine(_dir.Path, "sorted.hint");
        using (var writer = new HintFile.Writer(FileStorageDevice.Instance.Open(sorted, FileMode.CreateNew, writable: true), Seed))
        {
            foreach (int i in Enumerable.Range(0, 1000).OrderBy(i => (uint)KeyHasher.Hash(Key(i), Seed)))
            {
                writer.Add(Key(i), KeyHasher.Hash(Key(i), Seed), Offset(i), 1);
            }

            writer.Complete(SegmentLength);
        }

        Assert.Equal(new HintHeader(2, Seed, Keys, SortedByHash: false), Header(unsorted));
        Assert.Equal(new HintHeader(2, Seed, 1000, SortedByHash: true), Header(sorted));
    }

    [Fact]
    public void AHeaderCountingOtherThanTheEntriesAppliesNothing()
    {
        string path = WriteHint();
        byte[] bytes = File.ReadAllBytes(path);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(24), Keys - 1); // a consistent header (CRC redone) for one entry fewer
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(32), Crc32C.Compute(bytes.AsSpan(0, 32)));
        File.WriteAllBytes(path, bytes);

        (bool ok, _) = Load(path);

        Assert.False(ok);
    }

    private static HintHeader Header(string path)
    {
        using IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false);
        Assert.True(HintFile.TryReadHeader(file, SegmentLength, out HintHeader header));
        return header;
    }

    [Fact]
    public void ADamagedStoredHashFailsTheEntrysCrc()
    {
        string path = WriteHint();
        byte[] bytes = File.ReadAllBytes(path);
        bytes[HeaderSize + (17 * EntrySize) + 12] ^= 0x01; // the hash of entry 17
        File.WriteAllBytes(path, bytes);

        (bool ok, var applied) = Load(path);

        Assert.False(ok);
        Assert.Empty(applied);
    }

    [Fact]
    public void AVersion1HintIsStillReadWithEachKeyHashedUnderTheSeedAskedFor()
    {
        string path = WriteVersion1Hint();
        using (IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false))
        {
            Assert.True(HintFile.TryReadHeader(file, SegmentLength, out HintHeader header));
            Assert.Equal(1, header.Version);
            Assert.False(header.CarriesHashes);
        }

        (bool ok, var applied) = Load(path);
        Assert.True(ok);
        Assert.Equal(Enumerable.Range(0, Keys).Select(Offset), applied.Select(a => a.Offset));
        Assert.Equal(Enumerable.Range(0, Keys).Select(i => KeyHasher.Hash(Key(i), Seed)), Hashes(path, Seed));
    }

    [Fact]
    public void AHintOfAnUnknownVersionAppliesNothing()
    {
        string path = WriteHint();
        byte[] bytes = File.ReadAllBytes(path);
        bytes[7] = (byte)'9'; // "TDBHINT9"
        File.WriteAllBytes(path, bytes);

        using IStorageFile file = FileStorageDevice.Instance.Open(path, FileMode.Open, writable: false);
        Assert.False(HintFile.TryReadHeader(file, SegmentLength, out _));
        Assert.False(Load(path).Ok);
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

    private TailDbOptions CompactedStore() => CompactedStore(out _);

    private TailDbOptions CompactedStore(out ulong seed)
    {
        TailDbOptions options = _dir.Options() with { ExpectedKeyCount = Keys, CacheCapacityBytes = 0 };
        using (var store = TailDbStore.Open(options))
        {
            for (int i = 0; i < Keys; i++)
            {
                store.Put(Key(i), BitConverter.GetBytes(i * 7L));
            }

            store.Compact();
            seed = store.KeyHashSeed;
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
        bytes[HeaderSize + (35_000 * EntrySize) + 8] ^= 0x01; // value length of an entry past the first 1 MiB
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

    [Fact]
    public void ReopenAdoptsTheSeedItsHintWasWrittenWithSoNoKeyIsHashedAgain()
    {
        TailDbOptions options = CompactedStore(out ulong compactedWith);
        string hint = Directory.GetFiles(_dir.Path, "*.hint").Single();
        using (IStorageFile file = FileStorageDevice.Instance.Open(hint, FileMode.Open, writable: false))
        {
            Assert.True(HintFile.TryReadHeader(file, new FileInfo(Path.ChangeExtension(hint, ".seg")).Length, out HintHeader header));
            Assert.Equal(new HintHeader(2, compactedWith, Keys, SortedByHash: true), header); // compaction writes its entries in hash order
        }

        using var reopened = TailDbStore.Open(options);

        Assert.Equal(1, reopened.Recovery.HintFilesUsed);
        Assert.Equal(compactedWith, reopened.KeyHashSeed);
        for (int i = 0; i < Keys; i += 97)
        {
            Assert.Equal(i * 7L, BitConverter.ToInt64(reopened.Get(Key(i))!));
        }

        // Writes after the reopen find, replace and delete the loaded keys under the adopted seed.
        reopened.Put(Key(5), BitConverter.GetBytes(-5L));
        Assert.True(reopened.Delete(Key(6)));
        Assert.Equal(-5L, BitConverter.ToInt64(reopened.Get(Key(5))!));
        Assert.Null(reopened.Get(Key(6)));
        Assert.Equal(Keys - 1, reopened.CountKeysSlow());
    }

    [Fact]
    public void ReopenThroughAVersion1HintFindsEveryValue()
    {
        TailDbOptions options = CompactedStore(out ulong compactedWith);
        string hint = Directory.GetFiles(_dir.Path, "*.hint").Single();
        long segmentLength = new FileInfo(Path.ChangeExtension(hint, ".seg")).Length;
        RewriteAsVersion1(hint, segmentLength);

        using var reopened = TailDbStore.Open(options);

        Assert.Equal(1, reopened.Recovery.HintFilesUsed);
        Assert.Equal(Keys, reopened.CountKeysSlow());
        Assert.NotEqual(compactedWith, reopened.KeyHashSeed); // nothing to adopt: a fresh seed, every key hashed
        for (int i = 0; i < Keys; i++)
        {
            Assert.Equal(i * 7L, BitConverter.ToInt64(reopened.Get(Key(i))!));
        }
    }

    [Fact]
    public void ReopenThroughAVersion2HintNotInHashOrderFindsEveryValue()
    {
        TailDbOptions options = CompactedStore(out ulong compactedWith);
        string hint = Directory.GetFiles(_dir.Path, "*.hint").Single();
        long segmentLength = new FileInfo(Path.ChangeExtension(hint, ".seg")).Length;
        var entries = new List<(byte[] Key, int Hash, long Offset, int ValueLength)>();
        using (IStorageFile file = FileStorageDevice.Instance.Open(hint, FileMode.Open, writable: false))
        {
            Assert.True(HintFile.TryLoadOnce(file, segmentLength, compactedWith, (key, hash, offset, valueLength) => entries.Add((key.ToArray(), hash, offset, valueLength))));
        }

        File.Delete(hint);
        using (var writer = new HintFile.Writer(FileStorageDevice.Instance.Open(hint, FileMode.CreateNew, writable: true), compactedWith))
        {
            for (int i = entries.Count - 1; i >= 0; i--)
            {
                writer.Add(entries[i].Key, entries[i].Hash, entries[i].Offset, entries[i].ValueLength);
            }

            writer.Complete(segmentLength);
        }

        using var reopened = TailDbStore.Open(options);

        Assert.Equal(1, reopened.Recovery.HintFilesUsed);
        Assert.Equal(compactedWith, reopened.KeyHashSeed);
        Assert.Equal(Keys, reopened.CountKeysSlow());
        for (int i = 0; i < Keys; i++)
        {
            Assert.Equal(i * 7L, BitConverter.ToInt64(reopened.Get(Key(i))!));
        }
    }

    /// <summary>Rewrites a version 2 hint in version 1's layout (the entries' hashes and the seed dropped).</summary>
    private static void RewriteAsVersion1(string hint, long segmentLength)
    {
        byte[] v2 = File.ReadAllBytes(hint);
        using var v1 = new MemoryStream();
        var header = new byte[20];
        BinaryPrimitives.WriteUInt64LittleEndian(header, 0x3154_4E49_4842_4454); // "TDBHINT1"
        BinaryPrimitives.WriteInt64LittleEndian(header.AsSpan(8), segmentLength);
        BinaryPrimitives.WriteUInt32LittleEndian(header.AsSpan(16), Crc32C.Compute(header.AsSpan(0, 16)));
        v1.Write(header);
        for (int p = HeaderSize; p < v2.Length;)
        {
            int keyLength = BinaryPrimitives.ReadInt32LittleEndian(v2.AsSpan(p + 4));
            var entry = new byte[20 + keyLength];
            v2.AsSpan(p + 4, 8).CopyTo(entry.AsSpan(4)); // key and value lengths
            v2.AsSpan(p + 16, 8).CopyTo(entry.AsSpan(12)); // offset
            v2.AsSpan(p + 24, keyLength).CopyTo(entry.AsSpan(20));
            BinaryPrimitives.WriteUInt32LittleEndian(entry, Crc32C.Compute(entry.AsSpan(4)));
            v1.Write(entry);
            p += 24 + keyLength;
        }

        File.WriteAllBytes(hint, v1.ToArray());
    }
}
