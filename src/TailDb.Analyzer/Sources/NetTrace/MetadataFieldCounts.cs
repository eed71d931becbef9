using System.Buffers.Binary;

namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>
/// Checks the field counts of one MetadataBlock record (NetTraceFormat_v5: id, provider, event id,
/// name, keywords, version, level, field count and fields, then optional tags) against the bytes
/// that are there. Why: TraceEvent's EventPipeMetadata.ParseFields allocates arrays of the declared
/// count before reading a field, so one flipped count near int.MaxValue made it allocate and zero
/// 17 GB (found by the byte-mutation fuzz test) before failing. Every field takes at least six bytes
/// (a type code and a name terminator), so a count larger than a sixth of what is left is a lie.
/// Only a count that cannot fit is reported: a layout this walk does not follow ends the check
/// quietly, and TraceEvent decides, so a valid trace of a newer shape is never refused here.
/// </summary>
internal static class MetadataFieldCounts
{
    private const int MinFieldBytes = 4 + 2;
    private const int ObjectTypeCode = 1;
    private const int ArrayTypeCode = 19;
    private const byte ParameterPayloadV2Tag = 2;
    private const int MaxNesting = 8;

    /// <returns>Why the record cannot be what it says, or null when every count it declares fits.</returns>
    public static string? Problem(ReadOnlySpan<byte> record)
    {
        var at = 4; // metadata id
        if (!SkipUtf16Z(record, ref at) || !Skip(record, ref at, 4) || !SkipUtf16Z(record, ref at) || !Skip(record, ref at, 8 + 4 + 4))
        {
            return null; // A short head: the event walker or TraceEvent reports it.
        }

        var problem = Fields(record, ref at, record.Length, v2: false, depth: 0, out var followed);
        if (problem is not null || !followed)
        {
            return problem;
        }

        return Tags(record, at);
    }

    /// <summary>The optional tags after the V1 fields; a V2 parameter tag holds a second field list.</summary>
    private static string? Tags(ReadOnlySpan<byte> record, int at)
    {
        while (record.Length - at >= 5)
        {
            var tagBytes = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
            var kind = record[at + 4];
            at += 5;
            if (tagBytes < 0 || tagBytes > record.Length - at)
            {
                return null; // Not a tag this walk understands; TraceEvent decides.
            }

            var end = at + tagBytes;
            if (kind == ParameterPayloadV2Tag)
            {
                var tagAt = at;
                var problem = Fields(record, ref tagAt, end, v2: true, depth: 0, out _);
                if (problem is not null)
                {
                    return problem;
                }
            }

            at = end;
        }

        return null;
    }

    /// <param name="followed">False when the walk met a shape it does not know and stopped without a verdict.</param>
    private static string? Fields(ReadOnlySpan<byte> record, ref int at, int end, bool v2, int depth, out bool followed)
    {
        followed = false;
        if (end - at < 4)
        {
            return null;
        }

        var count = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
        at += 4;
        var left = end - at;
        if (count < 0 || count > left / MinFieldBytes)
        {
            return $"declares {count:N0} fields in {left:N0} bytes";
        }

        for (var i = 0; i < count; i++)
        {
            if (depth >= MaxNesting || !Field(record, ref at, end, v2, depth, out var problem))
            {
                return null;
            }

            if (problem is not null)
            {
                return problem;
            }
        }

        followed = true;
        return null;
    }

    /// <returns>False when the field's shape is not one this walk follows.</returns>
    private static bool Field(ReadOnlySpan<byte> record, ref int at, int end, bool v2, int depth, out string? problem)
    {
        problem = null;
        var fieldEnd = end;
        if (v2)
        {
            // A V2 field starts with its own length, which bounds everything nested in it.
            if (end - at < 4)
            {
                return false;
            }

            var fieldBytes = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
            if (fieldBytes < 4 || fieldBytes > end - at)
            {
                return false;
            }

            fieldEnd = at + fieldBytes;
            at += 4;
        }

        if (fieldEnd - at < 4)
        {
            return false;
        }

        var typeCode = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
        at += 4;
        if (v2 && typeCode == ArrayTypeCode)
        {
            if (fieldEnd - at < 4)
            {
                return false;
            }

            typeCode = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
            at += 4;
        }

        if (typeCode == ObjectTypeCode)
        {
            problem = Fields(record, ref at, fieldEnd, v2, depth + 1, out var followed);
            if (problem is not null || !followed)
            {
                return problem is not null;
            }
        }

        if (!SkipUtf16Z(record[..fieldEnd], ref at))
        {
            return false;
        }

        if (v2)
        {
            at = fieldEnd;
        }

        return true;
    }

    private static bool Skip(ReadOnlySpan<byte> data, ref int at, int bytes)
    {
        if (data.Length - at < bytes)
        {
            return false;
        }

        at += bytes;
        return true;
    }

    private static bool SkipUtf16Z(ReadOnlySpan<byte> data, ref int at)
    {
        for (var i = at; i + 1 < data.Length; i += 2)
        {
            if (data[i] == 0 && data[i + 1] == 0)
            {
                at = i + 2;
                return true;
            }
        }

        return false;
    }
}
