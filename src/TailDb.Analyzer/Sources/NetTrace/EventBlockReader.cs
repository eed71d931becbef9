using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>
/// Walks the events of one EventBlock or MetadataBlock payload (compressed or uncompressed headers,
/// NetTraceFormat.md): a span and an offset, the header fields decoded in place, the payload only
/// sliced when asked for. The one event-header decoder: the watch's ring, the stack reader and the
/// framing check all walk blocks with it. Every field is bounds-checked; a block that breaks the
/// format ends the walk with <see cref="Corrupt"/> set and <see cref="Error"/> naming the stream
/// offset (a status on the hot path: the watch drops that block and goes on, a file reader throws it).
/// </summary>
internal ref struct EventBlockReader
{
    private const short HeaderCompressionFlag = 1;
    private const int UncompressedHeaderBytes = 4 + 4 + 4 + 8 + 8 + 4 + 4 + 8 + 16 + 16 + 4;
    private const byte MetadataIdFlag = 1;
    private const byte CaptureThreadAndSequenceFlag = 2;
    private const byte ThreadIdFlag = 4;
    private const byte StackIdFlag = 8;
    private const byte ActivityIdFlag = 16;
    private const byte RelatedActivityIdFlag = 32;
    private const byte DataLengthFlag = 128;

    private readonly ReadOnlySpan<byte> _data;
    private readonly long _streamOffset;
    private readonly bool _compressed;
    private int _position;
    private int _payloadStart;
    private byte _flags;
    // Where this event's activity ids lie in the block (-1: none yet, read as empty): decoded only when asked for.
    private int _activityAt = -1;
    private int _relatedActivityAt = -1;

    /// <param name="streamOffset">Where the payload starts in its stream, for <see cref="Error"/>.</param>
    public EventBlockReader(ReadOnlySpan<byte> payload, long streamOffset = 0)
    {
        _data = payload;
        _streamOffset = streamOffset;
        var headerSize = payload.Length >= 4 ? BinaryPrimitives.ReadInt16LittleEndian(payload) : 0;
        if (headerSize < 4 || headerSize > payload.Length)
        {
            Corrupt = true;
            _problemAt = 0;
            _position = payload.Length;
            return;
        }

        _compressed = (BinaryPrimitives.ReadInt16LittleEndian(payload[2..]) & HeaderCompressionFlag) != 0;
        _position = headerSize;
    }

    /// <summary>The block broke the format (a field past its end, an overlong varint, a negative size); the walk stopped there.</summary>
    public bool Corrupt { get; private set; }

    // Where, in the block, the header (or event) that broke the format began.
    private int _problemAt;

    /// <summary>After <see cref="Corrupt"/>: the error a file reader throws, naming the stream offset of the broken event.</summary>
    public readonly TraceFormatException Error(string what) => TraceFormatException.Corrupt(
        what, _streamOffset + _problemAt, _problemAt == 0 ? "a block header that does not fit the block" : "an event header or payload runs past the end of the block");

    public int MetadataId { get; private set; }

    public int SequenceNumber { get; private set; }

    public long CaptureThreadId { get; private set; }

    public long ThreadId { get; private set; }

    public int StackId { get; private set; }

    public long Timestamp { get; private set; }

    public readonly Guid ActivityId => _activityAt < 0 ? Guid.Empty : new Guid(_data.Slice(_activityAt, 16));

    public readonly Guid RelatedActivityId => _relatedActivityAt < 0 ? Guid.Empty : new Guid(_data.Slice(_relatedActivityAt, 16));

    /// <summary>What this event's activity of kind <paramref name="activity"/> is paired by: its activity id, else (no id) its thread.</summary>
    public readonly ActivityKey PairingKey(int activity) => _activityAt < 0
        ? new(0, 0, ThreadId, activity)
        : ActivityKey.Of(BinaryPrimitives.ReadInt64LittleEndian(_data[_activityAt..]), BinaryPrimitives.ReadInt64LittleEndian(_data[(_activityAt + 8)..]), ThreadId, activity);

    public int PayloadSize { get; private set; }

    /// <summary>
    /// This event spells its capture thread and sequence number (uncompressed headers always do);
    /// otherwise it continues the previous event's thread with the next number, so no event can be
    /// missing before it.
    /// </summary>
    public readonly bool SequenceExplicit => !_compressed || (_flags & CaptureThreadAndSequenceFlag) != 0;

    /// <summary>This event spells its stack id (otherwise it repeats the previous event's).</summary>
    public readonly bool StackIdExplicit => !_compressed || (_flags & StackIdFlag) != 0;

    public readonly ReadOnlySpan<byte> Payload => _data.Slice(_payloadStart, PayloadSize);

    /// <summary>Where this event's payload starts in the block.</summary>
    public readonly int PayloadOffset => _payloadStart;

    public bool MoveNext()
    {
        if (_position >= _data.Length)
        {
            return false;
        }

        var at = _position;
        if (_compressed ? ReadCompressed() : ReadUncompressed())
        {
            return true;
        }

        Corrupt = true;
        _problemAt = at;
        _position = _data.Length;
        return false;
    }

    private bool ReadCompressed()
    {
        var data = _data;
        var position = _position;
        var flags = data[position++];
        _flags = flags;
        if ((flags & MetadataIdFlag) != 0)
        {
            if (!TryReadVarUInt32(data, ref position, out var metadataId))
            {
                return false;
            }

            MetadataId = (int)metadataId;
        }

        if ((flags & CaptureThreadAndSequenceFlag) != 0)
        {
            if (!TryReadVarUInt32(data, ref position, out var delta) || !TryReadVarUInt64(data, ref position, out var captureThread)
                || !TryReadVarUInt32(data, ref position, out _))
            {
                return false;
            }

            SequenceNumber += (int)delta + 1;
            CaptureThreadId = (long)captureThread;
        }
        else if (MetadataId != 0)
        {
            SequenceNumber++;
        }

        if ((flags & ThreadIdFlag) != 0)
        {
            if (!TryReadVarUInt64(data, ref position, out var thread))
            {
                return false;
            }

            ThreadId = (long)thread;
        }

        if ((flags & StackIdFlag) != 0)
        {
            if (!TryReadVarUInt32(data, ref position, out var stack))
            {
                return false;
            }

            StackId = (int)stack;
        }

        if (!TryReadVarUInt64(data, ref position, out var timestampDelta))
        {
            return false;
        }

        Timestamp += (long)timestampDelta;
        if ((flags & ActivityIdFlag) != 0)
        {
            if (data.Length - position < 16)
            {
                return false;
            }

            _activityAt = position;
            position += 16;
        }

        if ((flags & RelatedActivityIdFlag) != 0)
        {
            if (data.Length - position < 16)
            {
                return false;
            }

            _relatedActivityAt = position;
            position += 16;
        }

        if ((flags & DataLengthFlag) != 0)
        {
            if (!TryReadVarUInt32(data, ref position, out var size))
            {
                return false;
            }

            PayloadSize = (int)size;
        }

        return TakePayload(position);
    }

    private bool ReadUncompressed()
    {
        var header = _data[_position..];
        if (header.Length < UncompressedHeaderBytes)
        {
            return false;
        }

        // Event size first (not needed: the payload size below says where the next event starts).
        MetadataId = BinaryPrimitives.ReadInt32LittleEndian(header[4..]) & 0x7FFF_FFFF; // high bit: IsSorted
        SequenceNumber = BinaryPrimitives.ReadInt32LittleEndian(header[8..]);
        ThreadId = BinaryPrimitives.ReadInt64LittleEndian(header[12..]);
        CaptureThreadId = BinaryPrimitives.ReadInt64LittleEndian(header[20..]);
        StackId = BinaryPrimitives.ReadInt32LittleEndian(header[32..]);
        Timestamp = BinaryPrimitives.ReadInt64LittleEndian(header[36..]);
        _activityAt = _position + 44;
        _relatedActivityAt = _position + 60;
        PayloadSize = BinaryPrimitives.ReadInt32LittleEndian(header[76..]);
        if (!TakePayload(_position + UncompressedHeaderBytes))
        {
            return false;
        }

        // Uncompressed events are 4-aligned within the block (the block itself starts 4-aligned).
        var pad = (4 - (_position & 3)) & 3;
        _position = Math.Min(_position + pad, _data.Length);
        return true;
    }

    private bool TakePayload(int position)
    {
        if ((uint)PayloadSize > (uint)(_data.Length - position))
        {
            return false;
        }

        _payloadStart = position;
        _position = position + PayloadSize;
        return true;
    }

    // Most header fields are deltas or small ids: one byte, no loop.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool TryReadVarUInt32(ReadOnlySpan<byte> data, ref int position, out uint value)
    {
        if ((uint)position < (uint)data.Length && data[position] < 0x80)
        {
            value = data[position++];
            return true;
        }

        var ok = TryReadVarUInt64Slow(data, ref position, 5, out var wide);
        value = (uint)wide;
        return ok;
    }

    // Timestamp deltas between neighbouring events usually take two bytes (QPC ticks are nanoseconds here).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool TryReadVarUInt64(ReadOnlySpan<byte> data, ref int position, out ulong value)
    {
        if ((uint)(position + 1) < (uint)data.Length)
        {
            var first = data[position];
            if (first < 0x80)
            {
                value = first;
                position++;
                return true;
            }

            var second = data[position + 1];
            if (second < 0x80)
            {
                value = (first & 0x7Fu) | ((ulong)second << 7);
                position += 2;
                return true;
            }
        }

        return TryReadVarUInt64Slow(data, ref position, 10, out value);
    }

    private static bool TryReadVarUInt64Slow(ReadOnlySpan<byte> data, ref int position, int maxBytes, out ulong value)
    {
        value = 0;
        for (var i = 0; i < maxBytes; i++)
        {
            if ((uint)position >= (uint)data.Length)
            {
                return false;
            }

            var b = data[position++];
            value |= (ulong)(b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0)
            {
                return true;
            }
        }

        return false;
    }
}
