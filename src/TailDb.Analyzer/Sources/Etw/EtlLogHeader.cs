namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// The fields of TRACE_LOGFILE_HEADER (the payload of the EventTrace header event, the first event of
/// the file) that the clock and the parsers need before any event is raised. Offsets after the two
/// string pointers depend on the pointer size the header itself states (docs/etl.md "The log file header").
/// </summary>
internal sealed record EtlLogHeader(
    int BufferSize, uint Version, int NumberOfProcessors, long EndTimeFileTime, int PointerSize, int EventsLost,
    int CpuSpeedMHz, long PerfFrequency, long StartTimeFileTime, int ClockType, int BuffersLost, long HeaderTimestamp)
{
    /// <summary>ReservedFlags: 1 = QPC, 2 = system time (100 ns ticks), 3 = CPU cycle counter.</summary>
    public const int ClockQpc = 1;
    public const int ClockSystemTime = 2;
    public const int ClockCpuCycle = 3;

    public static EtlLogHeader Parse(EtlBytes payload, long headerTimestamp)
    {
        var pointerSize = (int)payload.U32(44, "the log file header's PointerSize");
        if (pointerSize is not (4 or 8))
        {
            throw new EtlFormatException(payload.FileOffset + 44, $"the log file header states a pointer size of {pointerSize}");
        }

        // Two string pointers, then TIME_ZONE_INFORMATION (172 bytes), then LARGE_INTEGERs aligned to 8.
        var afterZone = 56 + 2 * pointerSize + 172;
        var bootTime = (afterZone + 7) & ~7;
        return new EtlLogHeader(
            BufferSize: (int)payload.U32(0, "BufferSize"),
            Version: payload.U32(4, "Version"),
            NumberOfProcessors: (int)payload.U32(12, "NumberOfProcessors"),
            EndTimeFileTime: payload.I64(16, "EndTime"),
            PointerSize: pointerSize,
            EventsLost: (int)payload.U32(48, "EventsLost"),
            CpuSpeedMHz: (int)payload.U32(52, "CpuSpeedInMHz"),
            PerfFrequency: payload.I64(bootTime + 8, "PerfFreq"),
            StartTimeFileTime: payload.I64(bootTime + 16, "StartTime"),
            ClockType: (int)payload.U32(bootTime + 24, "ReservedFlags"),
            BuffersLost: (int)payload.U32(bootTime + 28, "BuffersLost"),
            HeaderTimestamp: headerTimestamp);
    }
}
