using System.Buffers.Binary;
using System.Text;

namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>
/// The head of one MetadataBlock event's payload: the metadata id later events name, the provider,
/// the event id and the event name (the field descriptions after them are not needed online).
/// </summary>
internal readonly record struct MetadataRecord(int MetadataId, string Provider, int EventId, string Name)
{
    /// <summary>False when the payload ends early or a name has no terminator (a corrupt block).</summary>
    public static bool TryRead(ReadOnlySpan<byte> payload, out MetadataRecord record)
    {
        record = default;
        if (payload.Length < 4 || !TryReadUtf16Z(payload[4..], out var provider, out var used) || payload.Length < 4 + used + 4)
        {
            return false;
        }

        var rest = payload[(4 + used)..];
        if (!TryReadUtf16Z(rest[4..], out var name, out _))
        {
            return false;
        }

        record = new(BinaryPrimitives.ReadInt32LittleEndian(payload), provider, BinaryPrimitives.ReadInt32LittleEndian(rest), name);
        return true;
    }

    /// <summary>A null-terminated UTF-16 string; <paramref name="used"/> counts its terminator.</summary>
    private static bool TryReadUtf16Z(ReadOnlySpan<byte> data, out string text, out int used)
    {
        for (var i = 0; i + 1 < data.Length; i += 2)
        {
            if (data[i] == 0 && data[i + 1] == 0)
            {
                text = Encoding.Unicode.GetString(data[..i]);
                used = i + 2;
                return true;
            }
        }

        text = "";
        used = 0;
        return false;
    }
}
