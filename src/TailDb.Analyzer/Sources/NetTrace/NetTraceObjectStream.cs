using System.Buffers.Binary;
using System.Text;

namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>
/// The FastSerialization framing of a V4/V5 .nettrace file, read from the file (NetTraceFormat.md): the
/// "Nettrace" magic and stream header, then objects (BeginPrivateObject, a type object with a
/// name and version, the payload, EndObject) until a NullReference tag. Hands out each block's
/// payload as one span from a reused buffer, so memory stays bounded by the largest block.
/// </summary>
internal sealed class NetTraceObjectStream : IDisposable
{
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
        if (headerLength != NetTraceFormat.StreamHeader.Length)
        {
            // V6 replaced the FastSerialization header with a major/minor version pair.
            throw headerLength is >= 6 and < 100
                ? new TraceFormatException(TraceFormatProblem.NewerFormat, $"nettrace format version {headerLength} is newer than this stack reader understands (versions 4 and 5)")
                : new TraceFormatException(TraceFormatProblem.Corrupt, "corrupt stream header (expected '!FastSerialization.1')");
        }

        if (!ReadSmall(NetTraceFormat.StreamHeader.Length, "the stream header").SequenceEqual(Encoding.ASCII.GetBytes(NetTraceFormat.StreamHeader)))
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
        if (tag == NetTraceFormat.NullReferenceTag)
        {
            EndedWithMarker = true;
            return false;
        }

        Expect((byte)tag, NetTraceFormat.BeginPrivateObjectTag, "an object");
        Expect(ReadTag("an object's type"), NetTraceFormat.BeginPrivateObjectTag, "an object's type");
        Expect(ReadTag("an object's type"), NetTraceFormat.NullReferenceTag, "an object's type");
        var header = ReadSmall(12, "an object's type");
        version = BinaryPrimitives.ReadInt32LittleEndian(header);
        var nameLength = BinaryPrimitives.ReadInt32LittleEndian(header[8..]);
        if (nameLength is <= 0 or > NetTraceFormat.MaxTypeNameBytes)
        {
            throw TraceFormatException.Corrupt("object type", _position - 4, $"a name of {nameLength} bytes");
        }

        typeName = Encoding.ASCII.GetString(ReadSmall(nameLength, "an object's type"));
        Expect(ReadTag("an object's type"), NetTraceFormat.EndObjectTag, "an object's type");
        return true;
    }

    /// <summary>The Trace object's fields (fixed size, no block size), through its EndObject tag.</summary>
    public ReadOnlySpan<byte> ReadTraceObjectFields()
    {
        var fields = ReadExactly(NetTraceFormat.TraceFieldBytes, "the Trace object");
        Expect(ReadTag("the Trace object"), NetTraceFormat.EndObjectTag, "the Trace object");
        return fields;
    }

    /// <summary>A block's payload (after its size and alignment padding), through its EndObject tag.</summary>
    public ReadOnlySpan<byte> ReadBlock(string typeName, out long payloadOffset)
    {
        var size = BinaryPrimitives.ReadInt32LittleEndian(ReadSmall(4, typeName));
        if (size < 0 || size > NetTraceFormat.MaxBlockBytes)
        {
            throw TraceFormatException.Corrupt(typeName, _position - 4, $"a block of {size} bytes");
        }

        var pad = NetTraceFormat.PadTo4(_position);
        ReadSmall(pad, typeName);
        payloadOffset = _position;
        if (size > _length - _position)
        {
            throw Truncated(typeName);
        }

        var payload = ReadExactly(size, typeName);
        Expect(ReadTag(typeName), NetTraceFormat.EndObjectTag, typeName);
        return payload;
    }

    /// <summary>Steps over a block without reading its payload (a seek), through its EndObject tag.</summary>
    public void SkipBlock(string typeName)
    {
        var size = BinaryPrimitives.ReadInt32LittleEndian(ReadSmall(4, typeName));
        if (size < 0 || size > NetTraceFormat.MaxBlockBytes)
        {
            throw TraceFormatException.Corrupt(typeName, _position - 4, $"a block of {size} bytes");
        }

        var pad = NetTraceFormat.PadTo4(_position);
        if (pad + (long)size > _length - _position)
        {
            throw Truncated(typeName);
        }

        _position = _file.Seek(pad + (long)size, SeekOrigin.Current);
        Expect(ReadTag(typeName), NetTraceFormat.EndObjectTag, typeName);
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
            throw TraceFormatException.Corrupt(what, _position - 1, $"tag {actual} where {expected} belongs");
        }
    }

    private TraceFormatException Truncated(string what) => TraceFormatException.Truncated(what, _length);
}
