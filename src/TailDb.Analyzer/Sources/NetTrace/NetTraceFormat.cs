namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>The kinds of block a .nettrace stream carries (NetTraceFormat.md).</summary>
internal enum BlockKind : byte
{
    Other,
    Metadata,
    Stack,
    Event,
    SequencePoint,
}

/// <summary>The constants of the V4/V5 .nettrace framing, stated once (NetTraceFormat.md beside this file).</summary>
internal static class NetTraceFormat
{
    public const byte NullReferenceTag = 1;
    public const byte BeginPrivateObjectTag = 5;
    public const byte EndObjectTag = 6;
    public const string StreamHeader = "!FastSerialization.1";

    /// <summary>The magic, the header's length and the header.</summary>
    public const int StreamHeaderBytes = 8 + 4 + 20;

    /// <summary>The Trace object's fixed body.</summary>
    public const int TraceFieldBytes = (8 * 2) + 8 + 8 + 4 + 4 + 4 + 4;

    public const int TraceSyncTimeQpcAt = 16;
    public const int TraceQpcFrequencyAt = 24;
    public const int TracePointerSizeAt = 32;

    /// <summary>An object's type up to its name: two BeginPrivateObject tags, NullReference, version, min version, name length.</summary>
    public const int TypeHeadBytes = 3 + 12;

    public const int MaxTypeNameBytes = 32;

    // Far above anything the runtime writes (its blocks are ~100 KB); a larger size is corruption.
    public const int MaxBlockBytes = 256 << 20;

    /// <summary>Event block header flag: events use compressed headers.</summary>
    public const short HeaderCompressionFlag = 1;

    public static BlockKind KindOf(ReadOnlySpan<byte> name) =>
        name.SequenceEqual("EventBlock"u8) ? BlockKind.Event
        : name.SequenceEqual("MetadataBlock"u8) ? BlockKind.Metadata
        : name.SequenceEqual("StackBlock"u8) ? BlockKind.Stack
        : name.SequenceEqual("SPBlock"u8) ? BlockKind.SequencePoint
        : BlockKind.Other;

    public static BlockKind KindOf(string name) => name switch
    {
        "EventBlock" => BlockKind.Event,
        "MetadataBlock" => BlockKind.Metadata,
        "StackBlock" => BlockKind.Stack,
        "SPBlock" => BlockKind.SequencePoint,
        _ => BlockKind.Other,
    };

    /// <summary>Padding from <paramref name="streamOffset"/> to the next 4-byte boundary of the stream.</summary>
    public static int PadTo4(long streamOffset) => (int)((4 - (streamOffset & 3)) & 3);
}
