using System.Buffers;
using System.Buffers.Binary;

namespace TailDb.Storage;

/// <summary>Receives one hint entry; <paramref name="key"/> is valid only during the call. <paramref name="hash"/> is the key's under the seed the load asked for.</summary>
internal delegate void HintEntryHandler(ReadOnlySpan<byte> key, int hash, long offset, int valueLength);

/// <summary>
/// Receives hint entries as a struct, so the walk is compiled for it and the per-entry call is
/// inlined (the bulk load's path: a million entries, no delegate call or closure each).
/// </summary>
internal interface IHintEntrySink
{
    void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength);
}

/// <summary>
/// What a hint file's header says: its format version and, from version 2, the seed its entries'
/// hashes were made with, how many entries it holds, and whether they are in ascending order of
/// their hashes (unsigned), which lets a bulk load place each key as it reads it.
/// </summary>
internal readonly record struct HintHeader(int Version, ulong Seed, int Count = -1, bool SortedByHash = false)
{
    /// <summary>Whether the entries carry key hashes (version 2).</summary>
    public bool CarriesHashes => Version >= 2;
}

/// <summary>
/// A compacted segment's index, so reopening reads keys and offsets instead of every value.
/// Version 2 (written since issue 25) also carries each key's hash under the key directory's seed,
/// so a reopen that adopts the seed places keys without hashing them again:
/// <code>
/// header  u64 magic "TDBHINT2" | u64 segment length | u64 hash seed | u32 entries | u32 flags | u32 CRC32C of the previous 32 bytes
/// entry   u32 CRC32C of the rest | u32 keyLength | u32 valueLength | u32 keyHash | u64 offset | key
/// </code>
/// flags bit 0: the entries are in ascending order of keyHash as an unsigned number (compaction
/// writes them so): the key directory's home slot is the hash's top bits, so a load places them
/// front to back through the table. The writer sets it only if the order it was given was so.
/// Version 1 (still read: its keys are hashed as they load, as before version 2 existed):
/// <code>
/// header  u64 magic "TDBHINT1" | u64 segment length | u32 CRC32C of the previous 16 bytes
/// entry   u32 CRC32C of the rest | u32 keyLength | u32 valueLength | u64 offset | key
/// </code>
/// Any mismatch (CRC, length, segment size, an unknown magic) makes the loader fall back to
/// scanning the segment.
/// </summary>
internal static class HintFile
{
    private const ulong MagicV1 = 0x3154_4E49_4842_4454; // "TDBHINT1"
    private const ulong MagicV2 = 0x3254_4E49_4842_4454; // "TDBHINT2"
    private const int HeaderSizeV1 = 20;
    private const int HeaderSizeV2 = 36;
    private const uint SortedByHashFlag = 1;
    private const int EntryHeaderSizeV1 = 20;
    private const int EntryHeaderSizeV2 = 24;

    /// <summary>
    /// Read and write unit: large enough that a 1M-key hint file (40 MB) takes a few dozen reads,
    /// and holds the largest entry (24 B + a 64 KiB key) whole.
    /// </summary>
    internal const int ChunkBytes = 1 << 20;

    /// <summary>An entry with a 16-byte key: the guess that sizes a bulk load's first buffer from the file's length.</summary>
    internal const int TypicalEntryBytes = EntryHeaderSizeV2 + 16;

    public sealed class Writer : IDisposable
    {
        private readonly IStorageFile _file;
        private readonly ulong _seed;
        private readonly byte[] _buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        private int _count;
        private long _offset = HeaderSizeV2;
        private int _entries;
        private bool _sorted = true;
        private uint _lastHash;

        /// <param name="seed">The seed every <see cref="Add"/>'s hash was made with (the key directory's).</param>
        public Writer(IStorageFile file, ulong seed)
        {
            _file = file;
            _seed = seed;
        }

        public void Add(ReadOnlySpan<byte> key, int hash, long offset, int valueLength)
        {
            int size = EntryHeaderSizeV2 + key.Length;
            _sorted &= (uint)hash >= _lastHash;
            _lastHash = (uint)hash;
            _entries = checked(_entries + 1);
            if (_buffer.Length - _count < size)
            {
                FlushBuffer();
            }

            Span<byte> entry = _buffer.AsSpan(_count, size);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[4..], (uint)key.Length);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[8..], (uint)valueLength);
            BinaryPrimitives.WriteInt32LittleEndian(entry[12..], hash);
            BinaryPrimitives.WriteInt64LittleEndian(entry[16..], offset);
            key.CopyTo(entry[EntryHeaderSizeV2..]);
            BinaryPrimitives.WriteUInt32LittleEndian(entry, Crc32C.Compute(entry[4..]));
            _count += size;
        }

        public void Complete(long segmentLength)
        {
            FlushBuffer();
            Span<byte> header = stackalloc byte[HeaderSizeV2];
            BinaryPrimitives.WriteUInt64LittleEndian(header, MagicV2);
            BinaryPrimitives.WriteInt64LittleEndian(header[8..], segmentLength);
            BinaryPrimitives.WriteUInt64LittleEndian(header[16..], _seed);
            BinaryPrimitives.WriteInt32LittleEndian(header[24..], _entries);
            BinaryPrimitives.WriteUInt32LittleEndian(header[28..], _sorted ? SortedByHashFlag : 0);
            BinaryPrimitives.WriteUInt32LittleEndian(header[32..], Crc32C.Compute(header[..32]));
            _file.Write(header, 0);
            _file.Flush();
        }

        private void FlushBuffer()
        {
            _file.Write(_buffer.AsSpan(0, _count), _offset);
            _offset += _count;
            _count = 0;
        }

        public void Dispose()
        {
            _file.Dispose();
            ArrayPool<byte>.Shared.Return(_buffer);
        }
    }

    /// <summary>The key bytes of a version 2 hint of <paramref name="fileLength"/> bytes (its header counts the entries); -1 for version 1.</summary>
    public static long KeyBytes(HintHeader header, long fileLength) =>
        header.CarriesHashes ? fileLength - HeaderSizeV2 - ((long)header.Count * EntryHeaderSizeV2) : -1;

    /// <summary>
    /// Reads and checks the header: false (scan the segment instead) when it is damaged, of an
    /// unknown version, or written for a segment of another length.
    /// </summary>
    public static bool TryReadHeader(IStorageFile hint, long segmentLength, out HintHeader header)
    {
        header = default;
        Span<byte> bytes = stackalloc byte[HeaderSizeV2];
        if (hint.Length < HeaderSizeV1 || hint.Read(bytes[..HeaderSizeV1], 0) != HeaderSizeV1)
        {
            return false;
        }

        switch (BinaryPrimitives.ReadUInt64LittleEndian(bytes))
        {
            case MagicV1:
                if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[16..]) != Crc32C.Compute(bytes[..16]))
                {
                    return false;
                }

                header = new HintHeader(1, 0);
                break;
            case MagicV2:
                if (hint.Length < HeaderSizeV2 || hint.Read(bytes[HeaderSizeV1..], HeaderSizeV1) != HeaderSizeV2 - HeaderSizeV1
                    || BinaryPrimitives.ReadUInt32LittleEndian(bytes[32..]) != Crc32C.Compute(bytes[..32])
                    || BinaryPrimitives.ReadInt32LittleEndian(bytes[24..]) < 0)
                {
                    return false;
                }

                header = new HintHeader(
                    2,
                    BinaryPrimitives.ReadUInt64LittleEndian(bytes[16..]),
                    BinaryPrimitives.ReadInt32LittleEndian(bytes[24..]),
                    (BinaryPrimitives.ReadUInt32LittleEndian(bytes[28..]) & SortedByHashFlag) != 0);
                break;
            default:
                return false;
        }

        return BinaryPrimitives.ReadInt64LittleEndian(bytes[8..]) == segmentLength;
    }

    /// <summary>
    /// Loads every entry into <paramref name="apply"/> only if the whole file is intact; otherwise
    /// returns false having applied nothing. Two sequential passes in <see cref="ChunkBytes"/>
    /// reads through one pooled buffer: the first checks every CRC and bound, the second applies.
    /// For a caller that cannot take entries back (a key directory already holding keys); one
    /// that can (<see cref="KeyDir.BulkLoad"/>, which publishes nothing until it completes) uses
    /// <see cref="TryLoadOnce{TSink}"/> and reads the file once. Each entry's hash is the one
    /// stored when the file's seed is <paramref name="seed"/>, else computed with it.
    /// </summary>
    public static bool TryLoad(IStorageFile hint, long segmentLength, ulong seed, HintEntryHandler apply, Action<int>? reserve = null)
    {
        if (!TryReadHeader(hint, segmentLength, out HintHeader header))
        {
            return false;
        }

        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            var verifyOnly = default(NoSink);
            if (!Walk(hint, header, segmentLength, seed, buffer, ref verifyOnly, verify: true, out int entries))
            {
                return false;
            }

            // The verified count lets the key directory size itself once for the whole file.
            reserve?.Invoke(entries);

            // The file is opened read-only under the store's lock file, so it cannot change
            // between the passes; a second failure would still apply nothing past the damage.
            var sink = new DelegateSink(apply);
            return Walk(hint, header, segmentLength, seed, buffer, ref sink, verify: false, out _);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>
    /// Reads the file once, handing each entry to <paramref name="apply"/> as soon as its CRC and
    /// bounds check out (while it is still in the cache). On damage it returns false with the
    /// entries before the damage already applied: the caller must be able to discard them.
    /// </summary>
    public static bool TryLoadOnce(IStorageFile hint, long segmentLength, ulong seed, HintEntryHandler apply)
    {
        if (!TryReadHeader(hint, segmentLength, out HintHeader header))
        {
            return false;
        }

        var sink = new DelegateSink(apply);
        return TryLoadOnce(hint, header, segmentLength, seed, ref sink);
    }

    /// <summary>
    /// <see cref="TryLoadOnce(IStorageFile, long, ulong, HintEntryHandler)"/> for a header already
    /// read (<see cref="TryReadHeader"/>), so the caller could adopt its seed first.
    /// </summary>
    public static bool TryLoadOnce<TSink>(IStorageFile hint, HintHeader header, long segmentLength, ulong seed, ref TSink sink)
        where TSink : struct, IHintEntrySink
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            return Walk(hint, header, segmentLength, seed, buffer, ref sink, verify: true, out _);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>One pass over the entries: checks bounds always, each CRC if <paramref name="verify"/>, and hands each entry to <paramref name="sink"/>.</summary>
    private static bool Walk<TSink>(IStorageFile hint, HintHeader header, long segmentLength, ulong seed, byte[] buffer, ref TSink sink, bool verify, out int entries)
        where TSink : struct, IHintEntrySink
    {
        bool v2 = header.CarriesHashes;
        bool storedHashes = v2 && header.Seed == seed;
        int entryHeaderSize = v2 ? EntryHeaderSizeV2 : EntryHeaderSizeV1;
        int offsetAt = v2 ? 16 : 12;
        long length = hint.Length;
        entries = 0;
        long position = v2 ? HeaderSizeV2 : HeaderSizeV1;
        while (position < length)
        {
            int count = hint.Read(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - position)), position);
            if (count <= 0)
            {
                return false;
            }

            ReadOnlySpan<byte> chunk = buffer.AsSpan(0, count);
            int p = 0;
            while (chunk.Length - p >= entryHeaderSize)
            {
                uint keyLength = BinaryPrimitives.ReadUInt32LittleEndian(chunk[(p + 4)..]);
                if (keyLength is 0 or > RecordFormat.MaxKeyBytes)
                {
                    return false;
                }

                int size = entryHeaderSize + (int)keyLength;
                if (chunk.Length - p < size)
                {
                    break; // Straddles the chunk's end: the next read starts at this entry.
                }

                ReadOnlySpan<byte> entry = chunk.Slice(p, size);
                uint valueLength = BinaryPrimitives.ReadUInt32LittleEndian(entry[8..]);
                long offset = BinaryPrimitives.ReadInt64LittleEndian(entry[offsetAt..]);
                if (valueLength > int.MaxValue || offset < RecordFormat.FileHeaderSize
                    || offset > segmentLength - RecordFormat.RecordSize((int)keyLength, 0) - valueLength)
                {
                    return false;
                }

                if (verify && BinaryPrimitives.ReadUInt32LittleEndian(entry) != Crc32C.Compute(entry[4..]))
                {
                    return false;
                }

                ReadOnlySpan<byte> key = entry[entryHeaderSize..];
                int hash = storedHashes ? BinaryPrimitives.ReadInt32LittleEndian(entry[12..])
                    : typeof(TSink) == typeof(NoSink) ? 0 : KeyHasher.Hash(key, seed);
                sink.Entry(key, hash, offset, (int)valueLength);

                p += size;
                entries++;
            }

            if (p == 0)
            {
                return false; // Not even one entry fits in what is left of the file: cut short.
            }

            position += p;
        }

        // A version 2 header says how many entries follow; a file holding another number is damaged.
        return !header.CarriesHashes || entries == header.Count;
    }

    /// <summary>Takes nothing: the verifying pass of <see cref="TryLoad"/>.</summary>
    private struct NoSink : IHintEntrySink
    {
        public readonly void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength)
        {
        }
    }

    private readonly struct DelegateSink(HintEntryHandler apply) : IHintEntrySink
    {
        public void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength) => apply(key, hash, offset, valueLength);
    }
}
