namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// The header type byte (third byte of every event in a buffer, docs/etl.md "Event header kinds").
/// The names are the kernel's TRACE_HEADER_TYPE_* values.
/// </summary>
internal enum EtlHeaderKind : byte
{
    /// <summary>SYSTEM_TRACE_HEADER of the kernel logger, 32-bit pointers: 32 bytes.</summary>
    System32 = 0x01,

    /// <summary>SYSTEM_TRACE_HEADER, 64-bit pointers: 32 bytes.</summary>
    System64 = 0x02,

    /// <summary>The system header without kernel and user times: 24 bytes.</summary>
    Compact32 = 0x03,

    /// <summary>The compact system header, 64-bit pointers: 24 bytes.</summary>
    Compact64 = 0x04,

    /// <summary>EVENT_TRACE_HEADER of a classic (MOF) provider, 32-bit: 48 bytes.</summary>
    FullHeader32 = 0x0A,

    /// <summary>EVENT_INSTANCE_HEADER (classic, with instance ids), 32-bit. Not read: counted.</summary>
    Instance32 = 0x0B,

    /// <summary>A timed WNODE header. Not read: counted.</summary>
    Timed = 0x0C,

    /// <summary>An error record. Not read: counted.</summary>
    Error = 0x0D,

    /// <summary>A WNODE_HEADER record. Not read: counted.</summary>
    WnodeHeader = 0x0E,

    /// <summary>MESSAGE_TRACE_HEADER (WPP TraceMessage). Not read: counted.</summary>
    Message = 0x0F,

    /// <summary>PERFINFO_TRACE_HEADER of the kernel logger (samples, stack walks), 32-bit: 16 bytes.</summary>
    PerfInfo32 = 0x10,

    /// <summary>PERFINFO_TRACE_HEADER, 64-bit: 16 bytes.</summary>
    PerfInfo64 = 0x11,

    /// <summary>EVENT_HEADER (manifest, EventSource, TraceLogging), 32-bit pointers: 80 bytes.</summary>
    EventHeader32 = 0x12,

    /// <summary>EVENT_HEADER, 64-bit pointers: 80 bytes.</summary>
    EventHeader64 = 0x13,

    /// <summary>EVENT_TRACE_HEADER of a classic provider, 64-bit: 48 bytes.</summary>
    FullHeader64 = 0x14,

    /// <summary>EVENT_INSTANCE_HEADER, 64-bit. Not read: counted.</summary>
    Instance64 = 0x15,
}
