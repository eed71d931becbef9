using System.Buffers.Binary;

namespace TailDb.Storage;

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

    public sealed class Writer : IDisposable
    {
        private readonly IStorageFile _file;
        private readonly MemoryStream _buffer = new();
        private long _offset = HeaderSize;

        public Writer(IStorageFile file) => _file = file;

        public void Add(ReadOnlySpan<byte> key, long offset, int valueLength)
        {
            Span<byte> entry = new byte[EntryHeaderSize + key.Length];
            BinaryPrimitives.WriteUInt32LittleEndian(entry[4..], (uint)key.Length);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[8..], (uint)valueLength);
            BinaryPrimitives.WriteInt64LittleEndian(entry[12..], offset);
            key.CopyTo(entry[EntryHeaderSize..]);
            BinaryPrimitives.WriteUInt32LittleEndian(entry, Crc32C.Compute(entry[4..]));
            _buffer.Write(entry);
            if (_buffer.Length >= 1 << 20)
            {
                FlushBuffer();
            }
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
            _file.Write(_buffer.GetBuffer().AsSpan(0, (int)_buffer.Length), _offset);
            _offset += _buffer.Length;
            _buffer.SetLength(0);
        }

        public void Dispose()
        {
            _file.Dispose();
            _buffer.Dispose();
        }
    }

    /// <summary>Loads every entry into <paramref name="apply"/> only if the whole file is intact; otherwise returns false having applied nothing.</summary>
    public static bool TryLoad(IStorageFile hint, long segmentLength, Action<byte[], long, int> apply)
    {
        long length = hint.Length;
        if (length < HeaderSize || length > int.MaxValue)
        {
            return false;
        }

        byte[] data = new byte[length];
        if (hint.Read(data, 0) != length)
        {
            return false;
        }

        ReadOnlySpan<byte> span = data;
        if (BinaryPrimitives.ReadUInt64LittleEndian(span) != Magic
            || BinaryPrimitives.ReadInt64LittleEndian(span[8..]) != segmentLength
            || BinaryPrimitives.ReadUInt32LittleEndian(span[16..]) != Crc32C.Compute(span[..16]))
        {
            return false;
        }

        var entries = new List<(byte[] Key, long Offset, int ValueLength)>();
        int p = HeaderSize;
        while (p < span.Length)
        {
            if (span.Length - p < EntryHeaderSize)
            {
                return false;
            }

            uint keyLength = BinaryPrimitives.ReadUInt32LittleEndian(span[(p + 4)..]);
            uint valueLength = BinaryPrimitives.ReadUInt32LittleEndian(span[(p + 8)..]);
            long offset = BinaryPrimitives.ReadInt64LittleEndian(span[(p + 12)..]);
            if (keyLength is 0 or > RecordFormat.MaxKeyBytes || valueLength > int.MaxValue || span.Length - p - EntryHeaderSize < keyLength
                || offset < RecordFormat.FileHeaderSize || offset + RecordFormat.RecordSize((int)keyLength, (int)valueLength) > segmentLength)
            {
                return false;
            }

            ReadOnlySpan<byte> entry = span.Slice(p, EntryHeaderSize + (int)keyLength);
            if (BinaryPrimitives.ReadUInt32LittleEndian(entry) != Crc32C.Compute(entry[4..]))
            {
                return false;
            }

            entries.Add((entry[EntryHeaderSize..].ToArray(), offset, (int)valueLength));
            p += entry.Length;
        }

        foreach ((byte[] key, long offset, int valueLength) in entries)
        {
            apply(key, offset, valueLength);
        }

        return true;
    }
}
