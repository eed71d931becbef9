using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Traces;

/// <summary>A payload field's type, as the event's metadata declares it.</summary>
internal enum PayloadFieldType
{
    /// <summary>A type with no fixed size this layout follows (arrays, nested objects): fields after it cannot be located.</summary>
    Unsupported,
    Bool,
    SByte,
    Byte,
    Int16,
    UInt16,
    Char,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Single,
    Double,
    DateTime,
    Guid,
    String,
}

internal readonly record struct PayloadField(string Name, PayloadFieldType Type);

/// <summary>How one event's bytes matched its layout.</summary>
internal enum PayloadFit
{
    /// <summary>Every field where the metadata says; the payload holds exactly those bytes (or more: a newer version's added fields).</summary>
    Declared,

    /// <summary>The numbers were written wider than declared, as an EventSource <c>WriteEvent</c> overload writes them (see <see cref="PayloadLayout"/>).</summary>
    Widened,

    /// <summary>The payload ends before the declared fields do: only the fields wholly inside it are located.</summary>
    Short,
}

/// <summary>
/// Where each field of an EventSource payload is, read from the event's metadata (field names and
/// types), never from an assumed order. The one place the analyzer reads request payload bytes.
/// <para>Format (EventSource's serialization, the same in EventPipe and ETW): fields back to back
/// in declared order, no padding, little-endian. Bool 4 bytes (Win32 BOOL), Char 2, SByte/Byte 1,
/// Int16/UInt16 2, Int32/UInt32/Single 4, Int64/UInt64/Double 8, DateTime 8 (a FILETIME), Guid 16,
/// String UTF-16 up to and including a 2-byte NUL (a null string is written as ""). So a field after
/// a string has no fixed offset: it is found per event, after the string's terminator.</para>
/// <para>Widening. The metadata comes from the event method's parameters, but the bytes from the
/// <c>WriteEvent</c> overload the method calls, and C# picks typed overloads by implicit conversion:
/// <c>RequestStart(int requestId, long arrivalTimestamp) =&gt; WriteEvent(1, requestId, arrivalTimestamp)</c>
/// binds <c>WriteEvent(int, long, long)</c> and writes requestId in 8 bytes, so the payload is 16
/// bytes where the metadata says 12, and a reader by the metadata (TraceEvent's too) finds the
/// arrival 4 bytes early: garbage (found by a user's app: p50 6.3e11 ms). The typed overloads are
/// (int), (int, int), (int, int, int), (long), (long, long), (long, long, long), (string, int),
/// (string, int, int), (string, long), (long, string), (int, string) (EventSource in .NET 10; the
/// string-only and byte[] ones widen nothing). When a payload's length is not the declared one but
/// is exactly what one of those overloads would write for the declared types (every number of 1-4
/// bytes to the overload's width), the fields are read where that overload put them. Any other
/// mismatch is not guessed at: fields wholly inside the payload at their declared offsets are read.</para>
/// </summary>
internal sealed class PayloadLayout
{
    private const int Variable = -1;

    /// <summary><see cref="Walk"/>'s end when it met a field of a type it cannot size.</summary>
    private const int Unfollowable = -2;

    /// <summary>The typed WriteEvent overloads' argument slots after the event id: 'S' a string, '4' an int, '8' a long.</summary>
    private static readonly string[] s_typedOverloads = ["4", "44", "444", "8", "88", "888", "S4", "S44", "S8", "8S", "4S"];

    private readonly int[] _declared;
    private readonly int[][] _widenings;

    public PayloadLayout(IReadOnlyList<PayloadField> fields)
    {
        ArgumentNullException.ThrowIfNull(fields);
        Fields = [.. fields];
        _declared = [.. Fields.Select(f => SizeOf(f.Type))];
        _widenings = [.. s_typedOverloads.Select(Widening).OfType<int[]>()];
    }

    public IReadOnlyList<PayloadField> Fields { get; }

    /// <summary>
    /// Field names and types from an event TraceEvent decoded, when the trace's own metadata is not at
    /// hand (<see cref="EventMetadata"/> reads a .nettrace's): the types of its values, which are the
    /// metadata's except that TraceEvent boxes 16-bit integers as Int32 (such a layout reads late).
    /// </summary>
    public static PayloadLayout Of(TraceEvent data)
    {
        ArgumentNullException.ThrowIfNull(data);
        var names = data.PayloadNames ?? [];
        var fields = new PayloadField[names.Length];
        for (var i = 0; i < names.Length; i++)
        {
            object? value;
            try
            {
                value = data.PayloadValue(i);
            }
            catch (Exception e) when (TracePass.IsParserFailure(e))
            {
                value = null; // A value TraceEvent cannot decode: its type stays unknown, and the fields after it unlocated.
            }

            fields[i] = new PayloadField(names[i], TypeOf(value));
        }

        return new PayloadLayout(fields);
    }

    public int IndexOf(string name)
    {
        for (var i = 0; i < Fields.Count; i++)
        {
            if (string.Equals(Fields[i].Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>
    /// Finds every field in one event's payload. <paramref name="offsets"/> and <paramref name="widths"/>
    /// get one entry per field: its byte offset and width (a string's width counts its terminator), or -1
    /// when the field is not wholly in the payload or cannot be located.
    /// </summary>
    public PayloadFit Locate(ReadOnlySpan<byte> payload, Span<int> offsets, Span<int> widths)
    {
        var end = Walk(payload, _declared, offsets, widths);
        if (end == payload.Length || end == Unfollowable)
        {
            // Exact, or a field past which nothing has a known offset (an array): the length cannot say more.
            return PayloadFit.Declared;
        }

        foreach (var widening in _widenings)
        {
            if (Walk(payload, widening, offsets, widths) == payload.Length)
            {
                return PayloadFit.Widened;
            }
        }

        // Not what any overload writes: the metadata's offsets, for what lies inside the payload.
        end = Walk(payload, _declared, offsets, widths);
        return end >= 0 ? PayloadFit.Declared : PayloadFit.Short;
    }

    /// <summary>An integer (bools as 0/1) at a located field, sign- or zero-extended as its type says; false for other types.</summary>
    public bool TryReadInteger(ReadOnlySpan<byte> payload, int field, int offset, int width, out long value)
    {
        value = 0;
        if (offset < 0 || width <= 0 || offset + width > payload.Length)
        {
            return false;
        }

        var type = Fields[field].Type;
        var bytes = payload.Slice(offset, width);
        var widened = width != _declared[field];
        switch (type)
        {
            case PayloadFieldType.Bool:
                value = BinaryPrimitives.ReadInt32LittleEndian(bytes) != 0 ? 1 : 0;
                return true;
            case PayloadFieldType.SByte or PayloadFieldType.Int16 or PayloadFieldType.Int32 or PayloadFieldType.Int64 or PayloadFieldType.UInt64:
            case PayloadFieldType.Byte or PayloadFieldType.UInt16 or PayloadFieldType.Char or PayloadFieldType.UInt32 when widened:
                // A widened number was converted to int or long by the compiler: its value is the signed read.
                value = width switch
                {
                    1 => (sbyte)bytes[0],
                    2 => BinaryPrimitives.ReadInt16LittleEndian(bytes),
                    4 => BinaryPrimitives.ReadInt32LittleEndian(bytes),
                    _ => BinaryPrimitives.ReadInt64LittleEndian(bytes),
                };
                return true;
            case PayloadFieldType.Byte:
                value = bytes[0];
                return true;
            case PayloadFieldType.UInt16 or PayloadFieldType.Char:
                value = BinaryPrimitives.ReadUInt16LittleEndian(bytes);
                return true;
            case PayloadFieldType.UInt32:
                value = BinaryPrimitives.ReadUInt32LittleEndian(bytes);
                return true;
            default:
                return false;
        }
    }

    /// <summary>A located string field's characters, without its terminator.</summary>
    public bool TryReadString(ReadOnlySpan<byte> payload, int field, int offset, int width, out ReadOnlySpan<char> value)
    {
        value = default;
        if (Fields[field].Type != PayloadFieldType.String || offset < 0 || width < 2 || offset + width > payload.Length)
        {
            return false;
        }

        value = MemoryMarshal.Cast<byte, char>(payload.Slice(offset, width - 2));
        return true;
    }

    /// <summary>"requestId=7 path=/a": every located field as text (the trigger request's line in watch).</summary>
    public string Describe(ReadOnlySpan<byte> payload)
    {
        Span<int> offsets = stackalloc int[Fields.Count];
        Span<int> widths = stackalloc int[Fields.Count];
        Locate(payload, offsets, widths);
        var parts = new List<string>(Fields.Count);
        for (var i = 0; i < Fields.Count; i++)
        {
            var text = TryReadString(payload, i, offsets[i], widths[i], out var chars) ? chars.ToString()
                : TryReadInteger(payload, i, offsets[i], widths[i], out var number) ? number.ToString(CultureInfo.InvariantCulture)
                : Other(payload, Fields[i].Type, offsets[i], widths[i]);
            parts.Add($"{Fields[i].Name}={text}");
        }

        return string.Join(" ", parts);
    }

    /// <summary>The declared types in C# spelling: "(int requestId, long arrivalTimestamp)".</summary>
    public string Signature() => "(" + string.Join(", ", Fields.Select(f => $"{CSharpName(f.Type)} {f.Name}")) + ")";

    /// <summary>
    /// Walks the fields with the given widths; returns the end offset, -1 when a field ran past the
    /// payload (a string without its terminator included), or <see cref="Unfollowable"/>.
    /// </summary>
    private static int Walk(ReadOnlySpan<byte> payload, int[] sizes, Span<int> offsets, Span<int> widths)
    {
        var at = 0;
        for (var i = 0; i < sizes.Length; i++)
        {
            var size = sizes[i];
            if (at >= 0 && size == Variable)
            {
                size = StringBytes(payload[at..]);
            }
            else if (at >= 0 && size == 0)
            {
                at = Unfollowable;
            }

            if (at < 0 || size <= 0 || at + size > payload.Length)
            {
                offsets[i] = widths[i] = -1;
                at = at == Unfollowable ? Unfollowable : -1;
                continue;
            }

            offsets[i] = at;
            widths[i] = size;
            at += size;
        }

        return at;
    }

    /// <summary>The widths a typed overload with these slots would write, or null when it does not take these fields or widens none.</summary>
    private int[]? Widening(string slots)
    {
        if (slots.Length != Fields.Count)
        {
            return null;
        }

        var sizes = new int[slots.Length];
        var widens = false;
        for (var i = 0; i < slots.Length; i++)
        {
            var type = Fields[i].Type;
            var declared = _declared[i];
            switch (slots[i])
            {
                case 'S' when type == PayloadFieldType.String:
                    sizes[i] = Variable;
                    break;
                case '4' when type is PayloadFieldType.SByte or PayloadFieldType.Byte or PayloadFieldType.Int16 or PayloadFieldType.UInt16
                    or PayloadFieldType.Char or PayloadFieldType.Int32:
                case '8' when type is PayloadFieldType.SByte or PayloadFieldType.Byte or PayloadFieldType.Int16 or PayloadFieldType.UInt16
                    or PayloadFieldType.Char or PayloadFieldType.Int32 or PayloadFieldType.UInt32 or PayloadFieldType.Int64:
                    sizes[i] = slots[i] - '0';
                    widens |= sizes[i] != declared;
                    break;
                default:
                    return null; // No implicit conversion to that slot: C# would not pick this overload.
            }
        }

        return widens ? sizes : null;
    }

    /// <summary>Bytes of the UTF-16 string at the start of <paramref name="data"/>, its terminator included; -1 without one.</summary>
    private static int StringBytes(ReadOnlySpan<byte> data)
    {
        for (var i = 0; i + 1 < data.Length; i += 2)
        {
            if (data[i] == 0 && data[i + 1] == 0)
            {
                return i + 2;
            }
        }

        return -1;
    }

    private static string Other(ReadOnlySpan<byte> payload, PayloadFieldType type, int offset, int width)
    {
        if (offset < 0 || width <= 0)
        {
            return "?";
        }

        var bytes = payload.Slice(offset, width);
        return type switch
        {
            PayloadFieldType.Single => BinaryPrimitives.ReadSingleLittleEndian(bytes).ToString(CultureInfo.InvariantCulture),
            PayloadFieldType.Double => BinaryPrimitives.ReadDoubleLittleEndian(bytes).ToString(CultureInfo.InvariantCulture),
            PayloadFieldType.Guid => new Guid(bytes).ToString(),
            PayloadFieldType.DateTime => DateTime.FromFileTimeUtc(Math.Max(0, BinaryPrimitives.ReadInt64LittleEndian(bytes))).ToString("O", CultureInfo.InvariantCulture),
            _ => "?",
        };
    }

    private static int SizeOf(PayloadFieldType type) => type switch
    {
        PayloadFieldType.SByte or PayloadFieldType.Byte => 1,
        PayloadFieldType.Int16 or PayloadFieldType.UInt16 or PayloadFieldType.Char => 2,
        PayloadFieldType.Bool or PayloadFieldType.Int32 or PayloadFieldType.UInt32 or PayloadFieldType.Single => 4,
        PayloadFieldType.Int64 or PayloadFieldType.UInt64 or PayloadFieldType.Double or PayloadFieldType.DateTime => 8,
        PayloadFieldType.Guid => 16,
        PayloadFieldType.String => Variable,
        _ => 0,
    };

    private static PayloadFieldType TypeOf(object? value) => value switch
    {
        bool => PayloadFieldType.Bool,
        sbyte => PayloadFieldType.SByte,
        byte => PayloadFieldType.Byte,
        short => PayloadFieldType.Int16,
        ushort => PayloadFieldType.UInt16,
        char => PayloadFieldType.Char,
        int => PayloadFieldType.Int32,
        uint => PayloadFieldType.UInt32,
        long => PayloadFieldType.Int64,
        ulong => PayloadFieldType.UInt64,
        float => PayloadFieldType.Single,
        double => PayloadFieldType.Double,
        DateTime => PayloadFieldType.DateTime,
        Guid => PayloadFieldType.Guid,
        string => PayloadFieldType.String,
        _ => PayloadFieldType.Unsupported,
    };

    private static string CSharpName(PayloadFieldType type) => type switch
    {
        PayloadFieldType.Bool => "bool",
        PayloadFieldType.SByte => "sbyte",
        PayloadFieldType.Byte => "byte",
        PayloadFieldType.Int16 => "short",
        PayloadFieldType.UInt16 => "ushort",
        PayloadFieldType.Char => "char",
        PayloadFieldType.Int32 => "int",
        PayloadFieldType.UInt32 => "uint",
        PayloadFieldType.Int64 => "long",
        PayloadFieldType.UInt64 => "ulong",
        PayloadFieldType.Single => "float",
        PayloadFieldType.Double => "double",
        PayloadFieldType.DateTime => "DateTime",
        PayloadFieldType.Guid => "Guid",
        PayloadFieldType.String => "string",
        _ => "?",
    };
}
