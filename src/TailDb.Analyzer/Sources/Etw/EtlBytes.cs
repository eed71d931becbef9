using System.Buffers.Binary;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// Bounds-checked little-endian reads over one buffer of the file. Every read names the file offset
/// it failed at, so a damaged trace ends in one line that says where.
/// </summary>
internal readonly ref struct EtlBytes
{
    private readonly ReadOnlySpan<byte> _bytes;

    /// <param name="fileOffset">Where <paramref name="bytes"/>[0] sits in the .etl.</param>
    /// <param name="decompressed">The bytes are a compressed buffer's, decompressed: an error names the buffer's offset and the position within it.</param>
    public EtlBytes(ReadOnlySpan<byte> bytes, long fileOffset, bool decompressed = false)
    {
        _bytes = bytes;
        FileOffset = fileOffset;
        _decompressed = decompressed;
    }

    private readonly bool _decompressed;

    public long FileOffset { get; }

    public int Length => _bytes.Length;

    public ReadOnlySpan<byte> Slice(int offset, int length, string what)
    {
        Check(offset, length, what);
        return _bytes.Slice(offset, length);
    }

    public byte U8(int offset, string what)
    {
        Check(offset, 1, what);
        return _bytes[offset];
    }

    public ushort U16(int offset, string what)
    {
        Check(offset, 2, what);
        return BinaryPrimitives.ReadUInt16LittleEndian(_bytes[offset..]);
    }

    public uint U32(int offset, string what)
    {
        Check(offset, 4, what);
        return BinaryPrimitives.ReadUInt32LittleEndian(_bytes[offset..]);
    }

    public long I64(int offset, string what)
    {
        Check(offset, 8, what);
        return BinaryPrimitives.ReadInt64LittleEndian(_bytes[offset..]);
    }

    public Guid Guid(int offset, string what) => new(Slice(offset, 16, what));

    public bool Fits(int offset, int length) => offset >= 0 && length >= 0 && (long)offset + length <= _bytes.Length;

    private void Check(int offset, int length, string what)
    {
        if (!Fits(offset, length))
        {
            throw _decompressed
                ? new EtlFormatException(FileOffset, $"{what} ({length} bytes) at byte {offset} of this compressed buffer, decompressed, runs past its end ({_bytes.Length} bytes)")
                : new EtlFormatException(FileOffset + Math.Max(offset, 0), $"{what} ({length} bytes) runs past the end of its buffer ({_bytes.Length} bytes)");
        }
    }
}
