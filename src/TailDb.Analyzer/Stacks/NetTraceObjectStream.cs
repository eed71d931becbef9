using System.Buffers.Binary;
using System.Text;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// The FastSerialization framing of a V4/V5 .nettrace file (NetTraceFormat_v5.md): the
/// "Nettrace" magic and stream header, then objects (BeginPrivateObject, a type object with a
/// name and version, the payload, EndObject) until a NullReference tag. Hands out each block's
/// payload as one span from a reused buffer, so memory stays bounded by the largest block.
/// </summary>
internal sealed class NetTraceObjectStream : IDisposable
{
    private const byte NullReferenceTag = 1;
    private const byte BeginPrivateObjectTag = 5;
    private const byte EndObjectTag = 6;
    private const string StreamHeader = "!FastSerialization.1";

    // Far above anything the runtime writes (its blocks are ~100 KB); a larger size is corruption.
    private const int MaxBlockBytes = 256 << 20;

    private readonly FileStream _file;
    private readonly long _length;
    private readonly byte[] _small = new byte[64];
    private byte[] _block = new byte[1 << 20];
    private long _position;

    public NetTraceObjectStream(string path)
    {
        try
        {
            _file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1 << 20, FileOptions.SequentialScan);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException or UnauthorizedAccessException or IOException)
        {
            throw new TraceFormatException(TraceFormatProblem.Unreadable, $"cannot open the trace: {e.Message}", e);
        }

        _length = _file.Length;
    }

    public long Length => _length;

    public long Position => _position;

    /// <summary>True when the stream ended with its NullReference tag (a clean stop), false
    /// when the file simply ended between two objects (the process died or the recorder was cut).</summary>
    public bool EndedWithMarker { get; private set; }

    public void ReadStreamHeader()
    {
        var magic = ReadSmall(8, "the stream header");
        if (!magic.SequenceEqual("Nettrace"u8))
        {
            throw new TraceFormatException(TraceFormatProblem.NotNetTrace, "not a .nettrace file (it does not start with 'Nettrace')");
        }

        var headerLength = BinaryPrimitives.ReadInt32LittleEndian(ReadSmall(4, "the stream header"));
        if (headerLength != StreamHeader.Length)
        {
            // V6 replaced the FastSerialization header with a major/minor version pair.
            throw headerLength is >= 6 and < 100
                ? new TraceFormatException(TraceFormatProblem.NewerFormat, $"nettrace format version {headerLength} is newer than this stack reader understands (versions 4 and 5)")
                : new TraceFormatException(TraceFormatProblem.Corrupt, "corrupt stream header (expected '!FastSerialization.1')");
        }

        if (!ReadSmall(StreamHeader.Length, "the stream header").SequenceEqual(Encoding.ASCII.GetBytes(StreamHeader)))
        {
            throw new TraceFormatException(TraceFormatProblem.Corrupt, "corrupt stream header (expected '!FastSerialization.1')");
        }
    }

    /// <summary>Reads the next object's type; false at the end of the stream.</summary>
    public bool TryBeginObject(out string typeName, out int version)
    {
        typeName = "";
        version = 0;
        var tag = _file.ReadByte();
        if (tag < 0)
        {
            return false;
        }

        _position++;
        if (tag == NullReferenceTag)
        {
            EndedWithMarker = true;
            return false;
        }

        Expect((byte)tag, BeginPrivateObjectTag, "an object");
        Expect(ReadTag("an object's type"), BeginPrivateObjectTag, "an object's type");
        Expect(ReadTag("an object's type"), NullReferenceTag, "an object's type");
        var header = ReadSmall(12, "an object's type");
        version = BinaryPrimitives.ReadInt32LittleEndian(header);
        var nameLength = BinaryPrimitives.ReadInt32LittleEndian(header[8..]);
        if (nameLength is <= 0 or > 32)
        {
            throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt object type at byte {_position - 4}: a name of {nameLength} bytes");
        }

        typeName = Encoding.ASCII.GetString(ReadSmall(nameLength, "an object's type"));
        Expect(ReadTag("an object's type"), EndObjectTag, "an object's type");
        return true;
    }

    /// <summary>The Trace object's fields (fixed size, no block size), through its EndObject tag.</summary>
    public ReadOnlySpan<byte> ReadTraceObjectFields()
    {
        const int fieldBytes = (8 * 2) + 8 + 8 + 4 + 4 + 4 + 4;
        var fields = ReadExactly(fieldBytes, "the Trace object");
        Expect(ReadTag("the Trace object"), EndObjectTag, "the Trace object");
        return fields;
    }

    /// <summary>A block's payload (after its size and alignment padding), through its EndObject tag.</summary>
    public ReadOnlySpan<byte> ReadBlock(string typeName, out long payloadOffset)
    {
        var size = BinaryPrimitives.ReadInt32LittleEndian(ReadSmall(4, typeName));
        if (size < 0 || size > MaxBlockBytes)
        {
            throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt {typeName} at byte {_position - 4}: a block of {size} bytes");
        }

        var pad = (int)((4 - (_position & 3)) & 3);
        ReadSmall(pad, typeName);
        payloadOffset = _position;
        if (size > _length - _position)
        {
            throw Truncated(typeName);
        }

        var payload = ReadExactly(size, typeName);
        Expect(ReadTag(typeName), EndObjectTag, typeName);
        return payload;
    }

    /// <summary>Steps over a block without reading its payload (a seek), through its EndObject tag.</summary>
    public void SkipBlock(string typeName)
    {
        var size = BinaryPrimitives.ReadInt32LittleEndian(ReadSmall(4, typeName));
        if (size < 0 || size > MaxBlockBytes)
        {
            throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt {typeName} at byte {_position - 4}: a block of {size} bytes");
        }

        var pad = (int)((4 - (_position & 3)) & 3);
        if (pad + (long)size > _length - _position)
        {
            throw Truncated(typeName);
        }

        _position = _file.Seek(pad + (long)size, SeekOrigin.Current);
        Expect(ReadTag(typeName), EndObjectTag, typeName);
    }

    public void Dispose() => _file.Dispose();

    private ReadOnlySpan<byte> ReadExactly(int count, string what)
    {
        if (_block.Length < count)
        {
            _block = new byte[Math.Max(count, _block.Length * 2)];
        }

        var read = _file.ReadAtLeast(_block.AsSpan(0, count), count, throwOnEndOfStream: false);
        _position += read;
        if (read < count)
        {
            throw Truncated(what);
        }

        return _block.AsSpan(0, count);
    }

    private ReadOnlySpan<byte> ReadSmall(int count, string what)
    {
        var read = _file.ReadAtLeast(_small.AsSpan(0, count), count, throwOnEndOfStream: false);
        _position += read;
        if (read < count)
        {
            throw Truncated(what);
        }

        return _small.AsSpan(0, count);
    }

    private byte ReadTag(string what) => ReadSmall(1, what)[0];

    private void Expect(byte actual, byte expected, string what)
    {
        if (actual != expected)
        {
            throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt {what} at byte {_position - 1}: tag {actual} where {expected} belongs");
        }
    }

    private TraceFormatException Truncated(string what) =>
        new(TraceFormatProblem.Truncated, $"the trace is truncated: it ends inside {what} at byte {_length} (the recording was cut short)");
}
