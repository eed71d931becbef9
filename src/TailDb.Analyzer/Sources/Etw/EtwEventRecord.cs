using System.Runtime.InteropServices;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// Windows' EVENT_RECORD, byte for byte: what ProcessTrace hands an ETW consumer, and what TraceEvent's
/// parsers read (TraceEventNativeMethods.EVENT_RECORD, internal to TraceEvent, has this layout).
/// The reader fills one in unmanaged memory per event and passes its address to TraceEvent's lookup.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct EtwEventRecord
{
    public EtwEventHeader Header;
    public byte ProcessorNumber;
    public byte Alignment;
    public ushort LoggerId;
    public ushort ExtendedDataCount;
    public ushort UserDataLength;
    public unsafe EtwExtendedDataItem* ExtendedData;
    public nint UserData;
    public nint UserContext;
}

/// <summary>EVENT_HEADER as a consumer sees it (80 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct EtwEventHeader
{
    public ushort Size;
    public ushort HeaderType;
    public ushort Flags;
    public ushort EventProperty;
    public int ThreadId;
    public int ProcessId;
    public long TimeStamp;
    public Guid ProviderId;
    public ushort Id;
    public byte Version;
    public byte Channel;
    public byte Level;
    public byte Opcode;
    public ushort Task;
    public ulong Keyword;
    public uint KernelTime;
    public uint UserTime;
    public Guid ActivityId;

    public const ushort FlagExtendedInfo = 0x0001;
    public const ushort Flag32BitHeader = 0x0020;
    public const ushort Flag64BitHeader = 0x0040;
    public const ushort FlagClassicHeader = 0x0100;
}

/// <summary>EVENT_HEADER_EXTENDED_DATA_ITEM as a consumer sees it (16 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct EtwExtendedDataItem
{
    public ushort Reserved1;
    public ushort ExtType;
    public ushort Reserved2;
    public ushort DataSize;
    public ulong DataPtr;

    public const ushort RelatedActivityId = 0x0001;
    public const ushort StackTrace32 = 0x0005;
    public const ushort StackTrace64 = 0x0006;
    public const ushort SchemaTraceLogging = 0x000B;
}
