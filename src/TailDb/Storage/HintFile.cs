using System.Buffers;
using System.Buffers.Binary;

namespace TailDb.Storage;

/// <summary>Receives one hint entry; <paramref name="key"/> is valid only during the call.</summary>
internal delegate void HintEntryHandler(ReadOnlySpan<byte> key, long offset, int valueLength);

/// <summary>
/// Receives hint entries as a struct, so the walk is compiled for it and the per-entry call is
/// inlined (the bulk load's path: a million entries, no delegate call or closure each).
/// </summary>
internal interface IHintEntrySink
{
    void Entry(ReadOnlySpan<byte> key, long offset, int valueLength);
}

/// <summary>
/// A compacted segment's index, so reopening reads keys and offsets instead of every value:
/// <code>
/// header  u64 magic "TDBHINT1" | u64 segment length | u32 CRC32C of the previous 16 bytes
/// entry   u32 CRC32C of the rest | u32 keyLength | u32 valueLength | u64 offset | key
/// </code>
/// Any mismatch (CRC, length, segment size) makes the loader fall back to scanning the segment.
/// </summary>
internal static class HintFile
{
    private const ulong Magic = 0x3154_4E49_4842_4454; // "TDBHINT1"
    private const int HeaderSize = 20;
    private const int EntryHeaderSize = 20;

    /// <summary>
    /// Read and write unit: large enough that a 1M-key hint file (36 MB) takes a few dozen reads,
    /// and holds the largest entry (20 B + a 64 KiB key) whole.
    /// </summary>
    internal const int ChunkBytes = 1 << 20;

    /// <summary>An entry with a 16-byte key: the guess that sizes a bulk load's first buffer from the file's length.</summary>
    internal const int TypicalEntryBytes = EntryHeaderSize + 16;

    public sealed class Writer : IDisposable
    {
        private readonly IStorageFile _file;
        private readonly byte[] _buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        private int _count;
        private long _offset = HeaderSize;

        public Writer(IStorageFile file) => _file = file;

        public void Add(ReadOnlySpan<byte> key, long offset, int valueLength)
        {
            int size = EntryHeaderSize + key.Length;
            if (_buffer.Length - _count < size)
            {
                FlushBuffer();
            }

            Span<byte> entry = _buffer.AsSpan(_count, size);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[4..], (uint)key.Length);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[8..], (uint)valueLength);
            BinaryPrimitives.WriteInt64LittleEndian(entry[12..], offset);
            key.CopyTo(entry[EntryHeaderSize..]);
            BinaryPrimitives.WriteUInt32LittleEndian(entry, Crc32C.Compute(entry[4..]));
            _count += size;
        }

        public void Complete(long segmentLength)
        {
            FlushBuffer();
            Span<byte> header = stackalloc byte[HeaderSize];
            BinaryPrimitives.WriteUInt64LittleEndian(header, Magic);
            BinaryPrimitives.WriteInt64LittleEndian(header[8..], segmentLength);
            BinaryPrimitives.WriteUInt32LittleEndian(header[16..], Crc32C.Compute(header[..16]));
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

    /// <summary>
    /// Loads every entry into <paramref name="apply"/> only if the whole file is intact; otherwise
    /// returns false having applied nothing. Two sequential passes in <see cref="ChunkBytes"/>
    /// reads through one pooled buffer: the first checks every CRC and bound, the second applies.
    /// For a caller that cannot take entries back (a key directory already holding keys); one
    /// that can (<see cref="KeyDir.BulkLoad"/>, which publishes nothing until it completes) uses
    /// <see cref="TryLoadOnce"/> and reads the file once.
    /// </summary>
    public static bool TryLoad(IStorageFile hint, long segmentLength, HintEntryHandler apply, Action<int>? reserve = null)
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            var verifyOnly = default(NoSink);
            if (!HeaderMatches(hint, segmentLength, buffer)
                || !Walk(hint, segmentLength, buffer, ref verifyOnly, verify: true, out int entries))
            {
                return false;
            }

            // The verified count lets the key directory size itself once for the whole file.
            reserve?.Invoke(entries);

            // The file is opened read-only under the store's lock file, so it cannot change
            // between the passes; a second failure would still apply nothing past the damage.
            var sink = new DelegateSink(apply);
            return Walk(hint, segmentLength, buffer, ref sink, verify: false, out _);
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
    public static bool TryLoadOnce(IStorageFile hint, long segmentLength, HintEntryHandler apply)
    {
        var sink = new DelegateSink(apply);
        return TryLoadOnce(hint, segmentLength, ref sink);
    }

    /// <inheritdoc cref="TryLoadOnce(IStorageFile, long, HintEntryHandler)"/>
    public static bool TryLoadOnce<TSink>(IStorageFile hint, long segmentLength, ref TSink sink)
        where TSink : struct, IHintEntrySink
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            return HeaderMatches(hint, segmentLength, buffer) && Walk(hint, segmentLength, buffer, ref sink, verify: true, out _);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static bool HeaderMatches(IStorageFile hint, long segmentLength, byte[] buffer)
    {
        Span<byte> header = buffer.AsSpan(0, HeaderSize);
        return hint.Length >= HeaderSize
            && hint.Read(header, 0) == HeaderSize
            && BinaryPrimitives.ReadUInt64LittleEndian(header) == Magic
            && BinaryPrimitives.ReadInt64LittleEndian(header[8..]) == segmentLength
            && BinaryPrimitives.ReadUInt32LittleEndian(header[16..]) == Crc32C.Compute(header[..16]);
    }

    /// <summary>One pass over the entries: checks bounds always, each CRC if <paramref name="verify"/>, and hands each entry to <paramref name="sink"/>.</summary>
    private static bool Walk<TSink>(IStorageFile hint, long segmentLength, byte[] buffer, ref TSink sink, bool verify, out int entries)
        where TSink : struct, IHintEntrySink
    {
        long length = hint.Length;
        entries = 0;
        long position = HeaderSize;
        while (position < length)
        {
            int count = hint.Read(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - position)), position);
            if (count <= 0)
            {
                return false;
            }

            ReadOnlySpan<byte> chunk = buffer.AsSpan(0, count);
            int p = 0;
            while (chunk.Length - p >= EntryHeaderSize)
            {
                uint keyLength = BinaryPrimitives.ReadUInt32LittleEndian(chunk[(p + 4)..]);
                if (keyLength is 0 or > RecordFormat.MaxKeyBytes)
                {
                    return false;
                }

                int size = EntryHeaderSize + (int)keyLength;
                if (chunk.Length - p < size)
                {
                    break; // Straddles the chunk's end: the next read starts at this entry.
                }

                ReadOnlySpan<byte> entry = chunk.Slice(p, size);
                uint valueLength = BinaryPrimitives.ReadUInt32LittleEndian(entry[8..]);
                long offset = BinaryPrimitives.ReadInt64LittleEndian(entry[12..]);
                if (valueLength > int.MaxValue || offset < RecordFormat.FileHeaderSize
                    || offset > segmentLength - RecordFormat.RecordSize((int)keyLength, 0) - valueLength)
                {
                    return false;
                }

                if (verify && BinaryPrimitives.ReadUInt32LittleEndian(entry) != Crc32C.Compute(entry[4..]))
                {
                    return false;
                }

                sink.Entry(entry[EntryHeaderSize..], offset, (int)valueLength);

                p += size;
                entries++;
            }

            if (p == 0)
            {
                return false; // Not even one entry fits in what is left of the file: cut short.
            }

            position += p;
        }

        return true;
    }

    /// <summary>Takes nothing: the verifying pass of <see cref="TryLoad"/>.</summary>
    private struct NoSink : IHintEntrySink
    {
        public readonly void Entry(ReadOnlySpan<byte> key, long offset, int valueLength)
        {
        }
    }

    private readonly struct DelegateSink(HintEntryHandler apply) : IHintEntrySink
    {
        public void Entry(ReadOnlySpan<byte> key, long offset, int valueLength) => apply(key, offset, valueLength);
    }
}
