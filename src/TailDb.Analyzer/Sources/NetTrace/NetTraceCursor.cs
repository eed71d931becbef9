using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>
/// Bounds-checked little-endian reads over one block (or record) of a .nettrace stream
/// (NetTraceFormat.md). Every read that would leave the block throws <see cref="TraceFormatException"/>
/// naming the stream offset, so a corrupt size field ends the read with one clear line instead of
/// an IndexOutOfRange or a wild skip.
/// </summary>
internal ref struct NetTraceCursor
{
    private readonly ReadOnlySpan<byte> _data;
    private readonly long _fileOffset;
    private readonly string _what;
    private int _position;

    public NetTraceCursor(ReadOnlySpan<byte> data, long fileOffset, string what)
    {
        _data = data;
        _fileOffset = fileOffset;
        _what = what;
    }

    public readonly int Position => _position;

    public readonly int Remaining => _data.Length - _position;

    /// <summary>What is left of the block, not consumed.</summary>
    public readonly ReadOnlySpan<byte> Rest => _data[_position..];

    public readonly long FileOffset => _fileOffset + _position;

    public byte ReadByte()
    {
        Need(1);
        return _data[_position++];
    }

    public short ReadInt16()
    {
        Need(2);
        var value = BinaryPrimitives.ReadInt16LittleEndian(_data[_position..]);
        _position += 2;
        return value;
    }

    public int ReadInt32()
    {
        Need(4);
        var value = BinaryPrimitives.ReadInt32LittleEndian(_data[_position..]);
        _position += 4;
        return value;
    }

    public long ReadInt64()
    {
        Need(8);
        var value = BinaryPrimitives.ReadInt64LittleEndian(_data[_position..]);
        _position += 8;
        return value;
    }

    public uint ReadVarUInt32()
    {
        // Most header fields are deltas or small ids: one byte.
        if ((uint)_position < (uint)_data.Length && _data[_position] < 0x80)
        {
            return _data[_position++];
        }

        uint value = 0;
        for (var shift = 0; shift < 35; shift += 7)
        {
            var b = ReadByte();
            value |= (uint)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                return value;
            }
        }

        throw Corrupt("a 32-bit varint runs past 5 bytes");
    }

    public ulong ReadVarUInt64()
    {
        if ((uint)_position < (uint)_data.Length && _data[_position] < 0x80)
        {
            return _data[_position++];
        }

        ulong value = 0;
        for (var shift = 0; shift < 70; shift += 7)
        {
            var b = ReadByte();
            value |= (ulong)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                return value;
            }
        }

        throw Corrupt("a 64-bit varint runs past 10 bytes");
    }

    public ReadOnlySpan<byte> ReadBytes(int count)
    {
        if (count < 0)
        {
            throw Corrupt($"a negative length ({count})");
        }

        Need(count);
        var bytes = _data.Slice(_position, count);
        _position += count;
        return bytes;
    }

    public void Skip(int count) => ReadBytes(count);

    /// <summary>Skips to the next 4-byte boundary of the file (blocks start 4-aligned).</summary>
    public void AlignTo4()
    {
        var pad = (int)((4 - (FileOffset & 3)) & 3);
        Skip(Math.Min(pad, Remaining));
    }

    /// <summary>A null-terminated UTF-16 string's bytes, without the terminator.</summary>
    public ReadOnlySpan<byte> ReadUtf16Z()
    {
        var rest = _data[_position..];
        for (var i = 0; i + 1 < rest.Length; i += 2)
        {
            if (rest[i] == 0 && rest[i + 1] == 0)
            {
                _position += i + 2;
                return rest[..i];
            }
        }

        throw Corrupt("a UTF-16 string has no terminator");
    }

    public readonly TraceFormatException Corrupt(string problem) => TraceFormatException.Corrupt(_what, FileOffset, problem);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private readonly void Need(int count)
    {
        if ((uint)count > (uint)(_data.Length - _position))
        {
            ThrowOverrun(count);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private readonly void ThrowOverrun(int count) =>
        throw Corrupt($"a field of {count} bytes runs past the end of the block ({Remaining} bytes left)");
}
