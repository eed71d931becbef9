using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace TailDb.Storage;

/// <summary>
/// One record in a segment file, little-endian:
/// <code>
///  0  u32 recordCrc    CRC32C of bytes [4, end): everything after it
///  4  u32 headerCrc    CRC32C of bytes [8, 16 + keyLength): the lengths and the key
///  8  u32 keyLength    1 .. 65536
/// 12  u32 valueLength  0 .. MaxValueBytes, or 0xFFFFFFFF for a tombstone
/// 16  key, then value
/// </code>
/// The second, header-only CRC is what lets recovery tell "this key's value is damaged" (report
/// the key as Corrupt, keep going) from "the lengths are damaged" (records after this point
/// cannot be attributed to keys, so an older value could silently come back: refuse to guess).
/// </summary>
internal static class RecordFormat
{
    public const int HeaderSize = 16;
    public const int MaxKeyBytes = 64 * 1024;
    public const uint TombstoneLength = uint.MaxValue;
    public const int MaxValueBytesLimit = int.MaxValue - HeaderSize - MaxKeyBytes - 64;

    public const int SealValueLength = 8;
    public const int SealSize = HeaderSize + SealValueLength;

    /// <summary>"TDBSEG01": the first 8 bytes of every segment file.</summary>
    public const ulong SegmentMagic = 0x3130_4745_5342_4454;
    public const int FileHeaderSize = 8;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void ValidateKey(ReadOnlySpan<byte> key)
    {
        if ((uint)(key.Length - 1) >= MaxKeyBytes)
        {
            ThrowBadKey(key.Length, nameof(key));
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowBadKey(int length, string paramName) => throw new ArgumentException(
        length == 0 ? "A TailDb key must not be empty." : $"A TailDb key is at most {MaxKeyBytes} bytes; this one has {length}.",
        paramName);

    public static int RecordSize(int keyLength, int valueLength) => HeaderSize + keyLength + valueLength;

    /// <summary>Writes a put (value) or a tombstone (value null) into <paramref name="destination"/>; returns its size.</summary>
    public static int Write(Span<byte> destination, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, bool tombstone)
    {
        int size = RecordSize(key.Length, tombstone ? 0 : value.Length);
        Span<byte> record = destination[..size];
        BinaryPrimitives.WriteUInt32LittleEndian(record[8..], (uint)key.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(record[12..], tombstone ? TombstoneLength : (uint)value.Length);
        key.CopyTo(record[HeaderSize..]);
        if (!tombstone)
        {
            value.CopyTo(record[(HeaderSize + key.Length)..]);
        }

        BinaryPrimitives.WriteUInt32LittleEndian(record[4..], Crc32C.Compute(record.Slice(8, 8 + key.Length)));
        BinaryPrimitives.WriteUInt32LittleEndian(record, Crc32C.Compute(record[4..]));
        return size;
    }

    /// <summary>Writes the seal that closes a segment whose data ends at <paramref name="offset"/>.</summary>
    public static int WriteSeal(Span<byte> destination, long offset)
    {
        Span<byte> seal = destination[..SealSize];
        BinaryPrimitives.WriteUInt32LittleEndian(seal[8..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(seal[12..], SealValueLength);
        BinaryPrimitives.WriteInt64LittleEndian(seal[HeaderSize..], offset);
        BinaryPrimitives.WriteUInt32LittleEndian(seal[4..], Crc32C.Compute(seal.Slice(8, 8)));
        BinaryPrimitives.WriteUInt32LittleEndian(seal, Crc32C.Compute(seal[4..]));
        return SealSize;
    }

    /// <summary>
    /// Checks the fixed header's lengths are plausible; on success the record's size is
    /// <c>HeaderSize + keyLength + max(valueLength, 0)</c> (valueLength -1 = tombstone).
    /// </summary>
    public static bool TryReadLengths(ReadOnlySpan<byte> header, int maxValueBytes, out int keyLength, out int valueLength)
    {
        uint k = BinaryPrimitives.ReadUInt32LittleEndian(header[8..]);
        uint v = BinaryPrimitives.ReadUInt32LittleEndian(header[12..]);
        keyLength = (int)Math.Min(k, int.MaxValue);
        valueLength = v == TombstoneLength ? -1 : (int)Math.Min(v, int.MaxValue);
        return (k is >= 1 and <= MaxKeyBytes && (v == TombstoneLength || v <= (uint)maxValueBytes))
            || (k == 0 && v == SealValueLength);
    }

    /// <summary>Header CRC check; <paramref name="headerAndKey"/> is the record's first 16 + keyLength bytes.</summary>
    public static bool HeaderIntact(ReadOnlySpan<byte> headerAndKey) =>
        BinaryPrimitives.ReadUInt32LittleEndian(headerAndKey[4..]) == Crc32C.Compute(headerAndKey[8..]);

    /// <summary>Whole-record CRC check.</summary>
    public static bool RecordIntact(ReadOnlySpan<byte> record) =>
        BinaryPrimitives.ReadUInt32LittleEndian(record) == Crc32C.Compute(record[4..]);
}
