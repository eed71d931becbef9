using System.Buffers.Binary;
using System.Text;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Traces;

/// <summary>
/// The payload fields (names and declared types) one provider's events have, as a .nettrace's
/// MetadataBlocks declare them: what <see cref="PayloadLayout"/> reads payloads by. Why not the
/// types of TraceEvent's decoded values: TraceEvent boxes an Int16 field as an Int32 (a 2-byte
/// field would pass for 4, and every field after it would be read 2 bytes late).
/// <para>Format (NetTraceFormat_v5.md, one MetadataBlock event's payload): metadata id (int32),
/// provider name (UTF-16, NUL-terminated), event id (int32), event name (UTF-16Z), keywords
/// (int64), version (int32), level (int32), field count (int32) and the V1 fields, each a TypeCode
/// (int32; 1 = a nested object: its own count and fields follow) and a name (UTF-16Z); then
/// optional tags, each a length (int32) and a kind (byte), where kind 2 holds the V2 fields (count,
/// then each: its byte length, TypeCode, the element TypeCode when the code is 19 (an array), a
/// nested object's fields, the name). The runtime writes V2 fields (with V1's count 0) when an event
/// has an array. TypeCodes are System.TypeCode's, with 17 a Guid and 19 an array.</para>
/// </summary>
internal sealed class EventMetadata
{
    private const int ObjectTypeCode = 1;
    private const int GuidTypeCode = 17;
    private const int ArrayTypeCode = 19;
    private const byte OpcodeTag = 1;
    private const byte ParameterPayloadV2Tag = 2;

    private readonly Dictionary<(int EventId, int Version), PayloadField[]> _fields = [];

    public int Count => _fields.Count;

    public bool TryGetFields(int eventId, int version, out PayloadField[] fields) => _fields.TryGetValue((eventId, version), out fields!);

    /// <summary>
    /// Every provider a .nettrace declares an event of, from its MetadataBlocks alone (seeking over the
    /// events), or null when the walk cannot follow the file or no record parses (the caller then reads
    /// events). The runtime writes an event's metadata into a session's file when that event is first
    /// written there, so a provider is in the set exactly when the file holds one of its events.
    /// </summary>
    public static IReadOnlySet<string>? ReadProviders(string path, TraceKind kind)
    {
        var providers = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        return Walk(path, kind, block =>
        {
            var events = new EventBlockReader(block);
            while (events.MoveNext())
            {
                if (TryParse(events.Payload, out var name, out _, out _, out _))
                {
                    providers.Add(name);
                }
            }
        }) && providers.Count > 0 ? providers : null;
    }

    /// <summary>
    /// The provider's event fields from a .nettrace's MetadataBlocks (one walk that seeks over every other
    /// block), or null for another format or a file whose framing this walk cannot follow (the caller then
    /// takes the types from TraceEvent's values). A file cut short keeps what came before the cut.
    /// </summary>
    public static EventMetadata? Read(string path, TraceKind kind, string provider)
    {
        ArgumentNullException.ThrowIfNull(provider);
        var metadata = new EventMetadata();
        return Walk(path, kind, block => metadata.AddBlock(block, provider)) ? metadata : null;
    }

    /// <summary>Hands each MetadataBlock to <paramref name="block"/>; false for another format or framing this walk cannot follow.</summary>
    private static bool Walk(string path, TraceKind kind, BlockAction block)
    {
        if (kind != TraceKind.NetTrace)
        {
            return false;
        }

        try
        {
            using var stream = new NetTraceObjectStream(path);
            stream.ReadStreamHeader();
            while (stream.TryBeginObject(out var typeName, out _))
            {
                if (typeName == "Trace")
                {
                    stream.ReadTraceObjectFields();
                }
                else if (typeName == "MetadataBlock")
                {
                    block(stream.ReadBlock(typeName, out _));
                }
                else
                {
                    stream.SkipBlock(typeName);
                }
            }
        }
        catch (TraceFormatException e) when (e.Problem == TraceFormatProblem.Truncated)
        {
            // Cut short: the records before the cut still describe the events before it.
        }
        catch (TraceFormatException)
        {
            return false;
        }

        return true;
    }

    private delegate void BlockAction(ReadOnlySpan<byte> block);

    /// <summary>One metadata record: its provider, event id, version and fields; false when it does not parse.</summary>
    public static bool TryParse(ReadOnlySpan<byte> record, out string provider, out int eventId, out int version, out PayloadField[] fields)
    {
        provider = "";
        eventId = version = 0;
        fields = [];
        var at = 4; // metadata id
        if (!TryReadUtf16Z(record, ref at, out provider) || !TryReadInt32(record, ref at, out eventId) || !TryReadUtf16Z(record, ref at, out _)
            || record.Length - at < 8 + 4 + 4)
        {
            return false;
        }

        at += 8; // keywords
        version = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
        at += 4 + 4; // version, level
        var list = new List<PayloadField>();
        if (!Fields(record, ref at, record.Length, v2: false, list, top: true))
        {
            return false;
        }

        // Tags: a V2 parameter list replaces the V1 one (which the runtime then leaves empty).
        while (record.Length - at >= 5)
        {
            var tagBytes = BinaryPrimitives.ReadInt32LittleEndian(record[at..]);
            var tag = record[at + 4];
            at += 5;
            if (tagBytes < 0 || tagBytes > record.Length - at)
            {
                return false;
            }

            if (tag == ParameterPayloadV2Tag)
            {
                var tagAt = at;
                list.Clear();
                if (!Fields(record, ref tagAt, at + tagBytes, v2: true, list, top: true))
                {
                    return false;
                }
            }
            else if (tag != OpcodeTag)
            {
                break; // A tag this reader does not know: the fields so far stand.
            }

            at += tagBytes;
        }

        fields = [.. list];
        return true;
    }

    private void AddBlock(ReadOnlySpan<byte> block, string provider)
    {
        var events = new EventBlockReader(block);
        while (events.MoveNext())
        {
            if (TryParse(events.Payload, out var name, out var eventId, out var version, out var fields)
                && string.Equals(name, provider, StringComparison.OrdinalIgnoreCase))
            {
                _fields.TryAdd((eventId, version), fields);
            }
        }
    }

    /// <summary>A field list; nested objects' fields are walked but not listed (the field is <see cref="PayloadFieldType.Unsupported"/>).</summary>
    private static bool Fields(ReadOnlySpan<byte> record, ref int at, int end, bool v2, List<PayloadField> list, bool top)
    {
        if (!TryReadInt32(record[..end], ref at, out var count) || count < 0 || count > (end - at) / 6)
        {
            return false;
        }

        for (var i = 0; i < count; i++)
        {
            var fieldEnd = end;
            if (v2)
            {
                if (!TryReadInt32(record[..end], ref at, out var fieldBytes) || fieldBytes < 4 || fieldBytes - 4 > end - at)
                {
                    return false;
                }

                fieldEnd = at + fieldBytes - 4;
            }

            if (!TryReadInt32(record[..fieldEnd], ref at, out var typeCode))
            {
                return false;
            }

            var isArray = false;
            if (v2 && typeCode == ArrayTypeCode)
            {
                isArray = true;
                if (!TryReadInt32(record[..fieldEnd], ref at, out typeCode))
                {
                    return false;
                }
            }

            if (typeCode == ObjectTypeCode && !Fields(record, ref at, fieldEnd, v2, list, top: false))
            {
                return false;
            }

            if (!TryReadUtf16Z(record[..fieldEnd], ref at, out var name))
            {
                return false;
            }

            if (top)
            {
                list.Add(new PayloadField(name, isArray ? PayloadFieldType.Unsupported : TypeOf(typeCode)));
            }

            if (v2)
            {
                at = fieldEnd;
            }
        }

        return true;
    }

    private static PayloadFieldType TypeOf(int typeCode) => typeCode switch
    {
        (int)TypeCode.Boolean => PayloadFieldType.Bool,
        (int)TypeCode.Char => PayloadFieldType.Char,
        (int)TypeCode.SByte => PayloadFieldType.SByte,
        (int)TypeCode.Byte => PayloadFieldType.Byte,
        (int)TypeCode.Int16 => PayloadFieldType.Int16,
        (int)TypeCode.UInt16 => PayloadFieldType.UInt16,
        (int)TypeCode.Int32 => PayloadFieldType.Int32,
        (int)TypeCode.UInt32 => PayloadFieldType.UInt32,
        (int)TypeCode.Int64 => PayloadFieldType.Int64,
        (int)TypeCode.UInt64 => PayloadFieldType.UInt64,
        (int)TypeCode.Single => PayloadFieldType.Single,
        (int)TypeCode.Double => PayloadFieldType.Double,
        (int)TypeCode.DateTime => PayloadFieldType.DateTime,
        GuidTypeCode => PayloadFieldType.Guid,
        (int)TypeCode.String => PayloadFieldType.String,
        _ => PayloadFieldType.Unsupported,
    };

    private static bool TryReadInt32(ReadOnlySpan<byte> data, ref int at, out int value)
    {
        value = 0;
        if (data.Length - at < 4)
        {
            return false;
        }

        value = BinaryPrimitives.ReadInt32LittleEndian(data[at..]);
        at += 4;
        return true;
    }

    private static bool TryReadUtf16Z(ReadOnlySpan<byte> data, ref int at, out string text)
    {
        for (var i = at; i + 1 < data.Length; i += 2)
        {
            if (data[i] == 0 && data[i + 1] == 0)
            {
                text = Encoding.Unicode.GetString(data[at..i]);
                at = i + 2;
                return true;
            }
        }

        text = "";
        return false;
    }
}
