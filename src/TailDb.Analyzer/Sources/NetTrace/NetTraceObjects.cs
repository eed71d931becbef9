using System.Buffers.Binary;

namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>Where one object lies in a buffer that starts at the object (NetTraceFormat.md, "Framing").</summary>
/// <param name="TypeEnd">The type header's length: two BeginPrivateObject tags through the type's EndObject.</param>
/// <param name="PayloadStart">Where the block's payload starts (after its size and padding).</param>
/// <param name="Length">The whole object, through its closing EndObject tag (1 for the end-of-stream tag).</param>
internal readonly record struct ObjectBounds(BlockKind Kind, bool EndOfStream, int NameLength, int TypeEnd, int PayloadStart, int Size, int Length);

/// <summary>The stream header and Trace object: the clock every timestamp is read by, and their length.</summary>
internal readonly record struct TraceHeader(long SyncTimeQpc, long QpcFrequency, int PointerSize, int Length);

/// <summary>
/// The framing of a .nettrace stream held in memory, piece by piece as it arrives (the watch's
/// ring): whether a buffer holds a whole object yet, and where its parts lie. The file reader's
/// counterpart is <see cref="NetTraceObjectStream"/>; both follow NetTraceFormat.md.
/// </summary>
internal static class NetTraceObjects
{
    // Stream header, then the Trace object: 2 tags, NullReference, 12 bytes, "Trace", EndObject, fields, EndObject.
    private const int TraceTypeBytes = NetTraceFormat.TypeHeadBytes + 5 + 1;

    /// <summary>The prologue's length: stream header and Trace object.</summary>
    public const int PrologueBytes = NetTraceFormat.StreamHeaderBytes + TraceTypeBytes + NetTraceFormat.TraceFieldBytes + 1;

    /// <summary>False while <paramref name="data"/> holds less than the prologue; throws when it is not a V4/V5 prologue.</summary>
    public static bool TryReadPrologue(ReadOnlySpan<byte> data, out TraceHeader header)
    {
        header = default;
        if (data.Length < PrologueBytes)
        {
            return false;
        }

        if (!data[..8].SequenceEqual("Nettrace"u8) || BinaryPrimitives.ReadInt32LittleEndian(data[8..]) != NetTraceFormat.StreamHeader.Length)
        {
            throw new TraceFormatException("the session's stream is not a V4/V5 .nettrace stream");
        }

        var fields = data.Slice(NetTraceFormat.StreamHeaderBytes + TraceTypeBytes, NetTraceFormat.TraceFieldBytes);
        header = new(
            BinaryPrimitives.ReadInt64LittleEndian(fields[NetTraceFormat.TraceSyncTimeQpcAt..]),
            BinaryPrimitives.ReadInt64LittleEndian(fields[NetTraceFormat.TraceQpcFrequencyAt..]),
            BinaryPrimitives.ReadInt32LittleEndian(fields[NetTraceFormat.TracePointerSizeAt..]),
            PrologueBytes);
        Expect(header.QpcFrequency > 0 && data[PrologueBytes - 1] == NetTraceFormat.EndObjectTag, NetTraceFormat.StreamHeaderBytes, "the Trace object");
        return true;
    }

    /// <summary>
    /// False while <paramref name="data"/> (starting at stream offset <paramref name="streamOffset"/>)
    /// holds less than a whole object; throws, naming the offset, when the framing is impossible.
    /// </summary>
    public static bool TryRead(ReadOnlySpan<byte> data, long streamOffset, out ObjectBounds bounds)
    {
        bounds = default;
        if (data.Length < 1)
        {
            return false;
        }

        if (data[0] == NetTraceFormat.NullReferenceTag)
        {
            bounds = new(BlockKind.Other, EndOfStream: true, 0, 0, 0, 0, 1);
            return true;
        }

        // BeginPrivateObject, BeginPrivateObject, NullReference, version, min version, name length, name, EndObject.
        if (data.Length < NetTraceFormat.TypeHeadBytes)
        {
            return false;
        }

        Expect(data[0] == NetTraceFormat.BeginPrivateObjectTag && data[1] == NetTraceFormat.BeginPrivateObjectTag && data[2] == NetTraceFormat.NullReferenceTag, streamOffset, "an object");
        var nameLength = BinaryPrimitives.ReadInt32LittleEndian(data[11..]);
        Expect(nameLength is > 0 and <= NetTraceFormat.MaxTypeNameBytes, streamOffset, "an object's type name");
        var typeEnd = NetTraceFormat.TypeHeadBytes + nameLength + 1;
        if (data.Length < typeEnd + 4)
        {
            return false;
        }

        Expect(data[typeEnd - 1] == NetTraceFormat.EndObjectTag, streamOffset, "an object's type");
        var size = BinaryPrimitives.ReadInt32LittleEndian(data[typeEnd..]);
        Expect(size is >= 0 and <= NetTraceFormat.MaxBlockBytes, streamOffset, "a block size");
        var payloadStart = typeEnd + 4;
        payloadStart += NetTraceFormat.PadTo4(streamOffset + payloadStart);
        if (data.Length < payloadStart + size + 1)
        {
            return false;
        }

        Expect(data[payloadStart + size] == NetTraceFormat.EndObjectTag, streamOffset, "a block's end");
        var kind = NetTraceFormat.KindOf(data.Slice(NetTraceFormat.TypeHeadBytes, nameLength));
        bounds = new(kind, EndOfStream: false, nameLength, typeEnd, payloadStart, size, payloadStart + size + 1);
        return true;
    }

    private static void Expect(bool condition, long streamOffset, string what)
    {
        if (!condition)
        {
            throw new TraceFormatException($"corrupt session stream at byte {streamOffset}: bad {what}");
        }
    }
}
