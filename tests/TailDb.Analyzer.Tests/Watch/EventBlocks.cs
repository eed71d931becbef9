using System.Buffers.Binary;
using System.Text;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// One event for <see cref="EventBlocks"/>: a null field is left out of the compressed header (the
/// reader then keeps the previous event's value), as the runtime writes it.
/// </summary>
internal sealed record RawEvent(
    long TimestampDelta, byte[] Payload, int? MetadataId = null, (int Delta, long CaptureThread)? Sequence = null, long? ThreadId = null,
    int? StackId = null, Guid? ActivityId = null, Guid? RelatedActivityId = null, bool SizeSpelled = true);

/// <summary>EventBlock and MetadataBlock payloads (NetTraceFormat_v5.md, compressed headers) built event by event.</summary>
internal static class EventBlocks
{
    public const int HeaderBytes = 20;

    public static byte[] Compressed(params RawEvent[] events)
    {
        using var body = new MemoryStream();
        long timestamp = 0, min = long.MaxValue, max = 0;
        foreach (var e in events)
        {
            timestamp += e.TimestampDelta;
            (min, max) = (Math.Min(min, timestamp), Math.Max(max, timestamp));
        }

        body.Write(BlockHeader(compressed: true, events.Length == 0 ? 0 : min, max));
        foreach (var e in events)
        {
            var flags = (e.MetadataId is null ? 0 : 1) | (e.Sequence is null ? 0 : 2) | (e.ThreadId is null ? 0 : 4) | (e.StackId is null ? 0 : 8)
                | (e.ActivityId is null ? 0 : 16) | (e.RelatedActivityId is null ? 0 : 32) | (e.SizeSpelled ? 128 : 0);
            body.WriteByte((byte)flags);
            if (e.MetadataId is { } id)
            {
                Var(body, (ulong)id);
            }

            if (e.Sequence is { } sequence)
            {
                Var(body, (ulong)sequence.Delta);
                Var(body, (ulong)sequence.CaptureThread);
                Var(body, 0); // processor
            }

            if (e.ThreadId is { } thread)
            {
                Var(body, (ulong)thread);
            }

            if (e.StackId is { } stack)
            {
                Var(body, (ulong)stack);
            }

            Var(body, (ulong)e.TimestampDelta);
            if (e.ActivityId is { } activity)
            {
                body.Write(activity.ToByteArray());
            }

            if (e.RelatedActivityId is { } related)
            {
                body.Write(related.ToByteArray());
            }

            if (e.SizeSpelled)
            {
                Var(body, (ulong)e.Payload.Length);
            }

            body.Write(e.Payload);
        }

        return body.ToArray();
    }

    /// <summary>One metadata event: the id later events name, provider, event id, event name (no fields).</summary>
    public static byte[] MetadataPayload(int metadataId, string provider, int eventId, string name)
    {
        using var payload = new MemoryStream();
        using var w = new BinaryWriter(payload);
        w.Write(metadataId);
        w.Write(Encoding.Unicode.GetBytes(provider));
        w.Write((short)0);
        w.Write(eventId);
        w.Write(Encoding.Unicode.GetBytes(name));
        w.Write((short)0);
        w.Write(0L); // keywords
        w.Write(1); // version
        w.Write(5); // level
        w.Write(0); // field count
        w.Flush();
        return payload.ToArray();
    }

    public static byte[] Metadata(params (int Id, string Provider, int EventId, string Name)[] records) =>
        Compressed([.. records.Select((r, i) => new RawEvent(0, MetadataPayload(r.Id, r.Provider, r.EventId, r.Name), MetadataId: 0,
            Sequence: i == 0 ? (0, 0) : null, ThreadId: 0, StackId: 0))]);

    /// <summary>Uncompressed headers: every field spelled, each event 4-aligned in the block.</summary>
    public static byte[] Uncompressed(params (int MetadataId, int Sequence, long Thread, int Stack, long Timestamp, Guid Activity, byte[] Payload)[] events)
    {
        using var body = new MemoryStream();
        using var w = new BinaryWriter(body);
        w.Write(BlockHeader(compressed: false, events.Length == 0 ? 0 : events.Min(e => e.Timestamp), events.Length == 0 ? 0 : events.Max(e => e.Timestamp)));
        foreach (var e in events)
        {
            w.Write(76 + e.Payload.Length);
            w.Write(e.MetadataId);
            w.Write(e.Sequence);
            w.Write(e.Thread);
            w.Write(e.Thread); // capture thread
            w.Write(0); // processor
            w.Write(e.Stack);
            w.Write(e.Timestamp);
            w.Write(e.Activity.ToByteArray());
            w.Write(new byte[16]); // related activity
            w.Write(e.Payload.Length);
            w.Write(e.Payload);
            while (body.Length % 4 != 0)
            {
                w.Write((byte)0);
            }
        }

        w.Flush();
        return body.ToArray();
    }

    private static byte[] BlockHeader(bool compressed, long minTimestamp, long maxTimestamp)
    {
        var header = new byte[HeaderBytes];
        BinaryPrimitives.WriteInt16LittleEndian(header, HeaderBytes);
        BinaryPrimitives.WriteInt16LittleEndian(header.AsSpan(2), (short)(compressed ? 1 : 0));
        BinaryPrimitives.WriteInt64LittleEndian(header.AsSpan(4), minTimestamp);
        BinaryPrimitives.WriteInt64LittleEndian(header.AsSpan(12), maxTimestamp);
        return header;
    }

    private static void Var(Stream stream, ulong value)
    {
        while (value >= 0x80)
        {
            stream.WriteByte((byte)(value | 0x80));
            value >>= 7;
        }

        stream.WriteByte((byte)value);
    }
}
