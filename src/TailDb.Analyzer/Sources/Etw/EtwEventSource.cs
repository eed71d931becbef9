using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// Reads an .etl (or PerfView's .etl.zip) on any OS and raises its events through TraceEvent's own
/// parsers: kernel, CLR, EventSource manifests, KernelTraceControl, PerfView's, registered
/// metadata. It walks the WMI buffers, merges the processors' buffers by timestamp, turns every
/// event header kind it knows into the EVENT_RECORD that Windows' ProcessTrace would deliver, and
/// hands that record to TraceEvent's lookup and dispatch, as ETWTraceEventSource does on Windows.
///
/// Why a subclass of EventPipeEventSource: TraceEventDispatcher's only constructor is internal to
/// TraceEvent, so no other assembly can derive from it; EventPipeEventSource is the public, unsealed
/// dispatcher whose streaming constructor reads nothing. Its Process is replaced whole; nothing of
/// the nettrace reader runs (docs/etl.md "How events reach TraceEvent").
/// </summary>
internal sealed unsafe class EtwEventSource : EventPipeEventSource
{
    private const int MaxExtendedItems = 16;

    private readonly EtlFile _file;
    private readonly List<EtlBufferStream> _streams = [];
    private readonly Dictionary<TraceEvent, Action> _fixups = new(ReferenceEqualityComparer.Instance);
    private EtwEventRecord* _record;
    private EtwExtendedDataItem* _extended;
    private bool _processed;

    public EtwEventSource(string path)
        : base(Stream.Null)
    {
        _file = EtlFile.Open(path);
        try
        {
            _record = (EtwEventRecord*)NativeMemory.AllocZeroed((nuint)sizeof(EtwEventRecord));
            _extended = (EtwExtendedDataItem*)NativeMemory.AllocZeroed((nuint)(sizeof(EtwExtendedDataItem) * MaxExtendedItems));
            IndexBuffers();
            Header = ReadLogHeader();
            SetClock(Header);
        }
        catch
        {
            DisposeResources();
            throw;
        }
    }

    public EtlLogHeader Header { get; }

    public EtwReadCounts Counts { get; } = new();

    /// <summary>Why reading stopped before the file's end, or null.</summary>
    public string? Truncation { get; private set; }

    public override int EventsLost => Header.EventsLost;

    /// <summary>
    /// Raise only this process's manifest and EventSource events (a machine-wide trace's CLR and
    /// request events); kernel events all pass, as TraceEvent's thread and process tracking needs them.
    /// </summary>
    public int? ProcessFilter { get; init; }

    /// <summary>Raised for every record before TraceEvent sees it; null for none (the benchmark's raw pass).</summary>
    internal Action<EtwEventRecord>? RecordObserver { get; set; }

    public override bool Process()
    {
        if (_processed)
        {
            throw new InvalidOperationException("an ETW trace is read once per source");
        }

        _processed = true;
        foreach (var stream in _streams)
        {
            stream.TryLoadNext(Counts);
        }

        var live = _streams.Where(s => s.Length > 0).ToList();
        var nextTime = new long[live.Count];
        for (var i = 0; i < live.Count; i++)
        {
            nextTime[i] = PeekTimestamp(live[i]);
        }

        while (true)
        {
            // The processors' streams merged by timestamp; a tie goes to the lower processor number.
            var best = -1;
            for (var i = 0; i < live.Count; i++)
            {
                if (nextTime[i] != long.MaxValue && (best < 0 || nextTime[i] < nextTime[best]))
                {
                    best = i;
                }
            }

            if (best < 0 || TraceEventInternals.StopRequested(this))
            {
                break;
            }

            var stream = live[best];
            ReadOne(stream);
            nextTime[best] = PeekTimestamp(stream);
        }

        return !TraceEventInternals.StopRequested(this);
    }

    protected override void Dispose(bool disposing)
    {
        DisposeResources();
        base.Dispose(disposing);
    }

    private void DisposeResources()
    {
        foreach (var stream in _streams)
        {
            stream.Dispose();
        }

        _streams.Clear();
        NativeMemory.Free(_record);
        _record = null;
        NativeMemory.Free(_extended);
        _extended = null;
        _file.Dispose();
    }

    /// <summary>Walks the buffer headers once and files each buffer under its processor.</summary>
    private void IndexBuffers()
    {
        Span<byte> header = stackalloc byte[EtlBufferInfo.HeaderSize];
        var byProcessor = new SortedDictionary<int, EtlBufferStream>();
        long offset = 0;
        while (offset < _file.Length)
        {
            if (_file.Length - offset < EtlBufferInfo.HeaderSize)
            {
                Truncation = $"the file ends {_file.Length - offset} bytes into a buffer header at byte {offset:N0}";
                break;
            }

            RandomAccess.Read(_file.Handle, header, offset);
            var view = new EtlBytes(header, offset);
            var size = (int)view.U32(0x00, "BufferSize");
            var used = (int)view.U32(0x04, "SavedOffset");
            var flags = view.U16(0x34, "BufferFlag");
            var processor = (flags & EtlBufferInfo.FlagProcessorIndex) != 0 ? view.U16(0x28, "ProcessorIndex") : view.U8(0x28, "ProcessorNumber");
            if (size < EtlBufferInfo.HeaderSize)
            {
                throw new EtlFormatException(offset, $"a buffer header states a size of {size} bytes, less than the header itself");
            }

            if (offset + size > _file.Length)
            {
                Truncation = $"the file ends inside the buffer at byte {offset:N0} ({_file.Length - offset:N0} of its {size:N0} bytes)";
                break;
            }

            var info = new EtlBufferInfo(offset, size, used, flags, processor);
            if (used < EtlBufferInfo.HeaderSize || (!info.Compressed && used > size) || used > 64 << 20)
            {
                throw new EtlFormatException(offset + 4, $"a buffer states {used} bytes in use (its size on disk is {size})");
            }

            if (!byProcessor.TryGetValue(processor, out var stream))
            {
                stream = new EtlBufferStream(_file, processor);
                byProcessor.Add(processor, stream);
            }

            stream.Add(info);
            offset += size;
        }

        _streams.AddRange(byProcessor.Values);
        if (_streams.Count == 0)
        {
            throw new EtlFormatException(0, "the file holds no complete buffer");
        }
    }

    /// <summary>The log file header is the first event of the file's first buffer.</summary>
    private EtlLogHeader ReadLogHeader()
    {
        using var first = new EtlBufferStream(_file, -1);
        first.Add(FirstBuffer());
        var scratch = new EtwReadCounts();
        if (!first.TryLoadNext(scratch))
        {
            throw new EtlFormatException(0, "the file holds no buffer");
        }

        var view = first.View;
        var p = EtlBufferInfo.HeaderSize;
        var kind = (EtlHeaderKind)view.U8(p + 2, "the first event's header type");
        if (kind is not (EtlHeaderKind.System32 or EtlHeaderKind.System64) || view.U8(p + 7, "its group") != 0 || view.U8(p + 6, "its type") != 0)
        {
            throw new EtlFormatException(p, $"the first event is not the EventTrace header (header kind {kind}); not an .etl file");
        }

        var size = view.U16(p + 4, "the header event's size");
        var payload = new EtlBytes(view.Slice(p + 32, size - 32, "the log file header"), view.FileOffset + p + 32);
        return EtlLogHeader.Parse(payload, view.I64(p + 16, "the header event's timestamp"));
    }

    private EtlBufferInfo FirstBuffer()
    {
        Span<byte> header = stackalloc byte[EtlBufferInfo.HeaderSize];
        RandomAccess.Read(_file.Handle, header, 0);
        var view = new EtlBytes(header, 0);
        return new EtlBufferInfo(0, (int)view.U32(0, "BufferSize"), (int)view.U32(4, "SavedOffset"), view.U16(0x34, "BufferFlag"), 0);
    }

    /// <summary>The clock as ETWTraceEventSource sets it for a file (docs/etl.md "Time").</summary>
    private void SetClock(EtlLogHeader header)
    {
        var frequency = header.ClockType == EtlLogHeader.ClockSystemTime ? 10_000_000 : header.PerfFrequency;
        if (header.ClockType == EtlLogHeader.ClockCpuCycle || frequency <= 0)
        {
            throw new EtlFormatException(0, $"the trace's clock (type {header.ClockType}, frequency {header.PerfFrequency}) is not one the reader converts (QPC or system time)");
        }

        var start = DateTime.FromFileTimeUtc(header.StartTimeFileTime);
        var end = header.EndTimeFileTime > header.StartTimeFileTime ? DateTime.FromFileTimeUtc(header.EndTimeFileTime) : start;
        TraceEventInternals.QpcFrequency(this) = frequency;
        TraceEventInternals.SyncTimeUtc(this) = start;
        TraceEventInternals.SyncTimeQpc(this) = header.HeaderTimestamp;
        TraceEventInternals.SessionStartQpc(this) = header.HeaderTimestamp;
        TraceEventInternals.SessionEndQpc(this) = header.HeaderTimestamp + (long)((end - start).Ticks / 10_000_000.0 * frequency);
        TraceEventInternals.PointerSize(this) = header.PointerSize;
        TraceEventInternals.NumberOfProcessors(this) = header.NumberOfProcessors;
        TraceEventInternals.CpuSpeedMHz(this) = header.CpuSpeedMHz;
        TraceEventInternals.OsVersion(this) = new Version((byte)header.Version, (byte)(header.Version >> 8), 0, 0);
        TraceEventInternals.SetFileFormatVersion(this, 6);
    }

    /// <summary>The timestamp of the stream's next event, loading its next buffer when one ends; MaxValue at its end.</summary>
    private long PeekTimestamp(EtlBufferStream stream)
    {
        while (true)
        {
            var view = stream.View;
            var p = stream.Position;
            if (view.Fits(p, 4) && view.U32(p, "a marker") != 0xFFFFFFFF)
            {
                var kind = (EtlHeaderKind)view.U8(p + 2, "a header type");
                var stampAt = kind is EtlHeaderKind.PerfInfo32 or EtlHeaderKind.PerfInfo64 ? 8 : 16;
                if ((view.U8(p + 3, "a marker's flags") & 0x80) != 0 && view.Fits(p + stampAt, 8))
                {
                    return view.I64(p + stampAt, "a timestamp");
                }

                Counts.Skip("records without a trace marker (rest of buffer)");
            }

            if (!stream.TryLoadNext(Counts))
            {
                return long.MaxValue;
            }
        }
    }

    /// <summary>Decodes the event at the stream's position into the record and dispatches it.</summary>
    private void ReadOne(EtlBufferStream stream)
    {
        var view = stream.View;
        var p = stream.Position;
        var kind = (EtlHeaderKind)view.U8(p + 2, "a header type");
        int size;
        var raise = false;
        var record = _record;
        *record = default;
        record->ProcessorNumber = (byte)stream.Processor;
        record->LoggerId = 0;
        switch (kind)
        {
            case EtlHeaderKind.System32 or EtlHeaderKind.System64 or EtlHeaderKind.Compact32 or EtlHeaderKind.Compact64:
            {
                size = view.U16(p + 4, "a system header's size");
                var full = kind is EtlHeaderKind.System32 or EtlHeaderKind.System64;
                var headerSize = full ? 32 : 24;
                CheckSize(view, p, size, headerSize, kind);
                var group = view.U8(p + 7, "a kernel group");
                if (!KernelGroups.TryGetProvider(group, view.U8(p + 6, "a type"), out var provider))
                {
                    Counts.Skip($"kernel group 0x{group:X2} events");
                    break;
                }

                ClassicHeader(record, kind is EtlHeaderKind.System64 or EtlHeaderKind.Compact64, provider, view.U8(p + 6, "a type"), (byte)view.U16(p, "a version"), 0);
                record->Header.ThreadId = (int)view.U32(p + 8, "a thread id");
                record->Header.ProcessId = (int)view.U32(p + 12, "a process id");
                record->Header.TimeStamp = view.I64(p + 16, "a timestamp");
                if (full)
                {
                    record->Header.KernelTime = view.U32(p + 24, "a kernel time");
                    record->Header.UserTime = view.U32(p + 28, "a user time");
                }

                raise = SetPayload(record, stream, p + headerSize, size - headerSize);
                break;
            }

            case EtlHeaderKind.PerfInfo32 or EtlHeaderKind.PerfInfo64:
            {
                size = view.U16(p + 4, "a perfinfo header's size");
                CheckSize(view, p, size, 16, kind);
                var group = view.U8(p + 7, "a kernel group");
                if (!KernelGroups.TryGetProvider(group, view.U8(p + 6, "a type"), out var provider))
                {
                    Counts.Skip($"kernel group 0x{group:X2} events");
                    break;
                }

                ClassicHeader(record, kind == EtlHeaderKind.PerfInfo64, provider, view.U8(p + 6, "a type"), (byte)view.U16(p, "a version"), 0);

                // The perfinfo header has no thread or process: the payload names them (samples, stack walks).
                record->Header.ThreadId = -1;
                record->Header.ProcessId = -1;
                record->Header.TimeStamp = view.I64(p + 8, "a timestamp");
                raise = SetPayload(record, stream, p + 16, size - 16);
                break;
            }

            case EtlHeaderKind.FullHeader32 or EtlHeaderKind.FullHeader64:
            {
                size = view.U16(p, "a trace header's size");
                CheckSize(view, p, size, 48, kind);
                ClassicHeader(record, kind == EtlHeaderKind.FullHeader64, view.Guid(p + 24, "a provider guid"), view.U8(p + 4, "a type"), (byte)view.U16(p + 6, "a version"), view.U8(p + 5, "a level"));
                record->Header.ThreadId = (int)view.U32(p + 8, "a thread id");
                record->Header.ProcessId = (int)view.U32(p + 12, "a process id");
                record->Header.TimeStamp = view.I64(p + 16, "a timestamp");
                record->Header.KernelTime = view.U32(p + 40, "a kernel time");
                record->Header.UserTime = view.U32(p + 44, "a user time");
                raise = SetPayload(record, stream, p + 48, size - 48);
                break;
            }

            case EtlHeaderKind.EventHeader32 or EtlHeaderKind.EventHeader64:
            {
                size = view.U16(p, "an event header's size");
                CheckSize(view, p, size, 80, kind);
                raise = EventHeader(record, stream, view, p, size, kind == EtlHeaderKind.EventHeader64);
                break;
            }

            default:
            {
                // Kinds whose layout the reader does not decode: the first 16 bits are their size
                // (WNODE_HEADER's is 32 bits), which is all that is needed to step over them.
                size = kind == EtlHeaderKind.WnodeHeader ? (int)view.U32(p, "a WNODE size") : view.U16(p, "a record size");
                CheckSize(view, p, size, 8, kind);
                Counts.Skip(Enum.IsDefined(kind) ? $"{kind} records" : $"header kind 0x{(byte)kind:X2} records");
                break;
            }
        }

        stream.Position = p + ((size + 7) & ~7);
        if (raise)
        {
            Raise(record);
        }
    }

    private static void CheckSize(EtlBytes view, int p, int size, int headerSize, EtlHeaderKind kind)
    {
        if (size < headerSize || !view.Fits(p, size))
        {
            throw new EtlFormatException(view.FileOffset + p, $"a {kind} record states {size} bytes; its header alone is {headerSize} and {view.Length - p} bytes remain in the buffer");
        }
    }

    private static void ClassicHeader(EtwEventRecord* record, bool is64, Guid provider, byte type, byte version, byte level)
    {
        record->Header.Size = 80;
        record->Header.Flags = (ushort)(EtwEventHeader.FlagClassicHeader | (is64 ? EtwEventHeader.Flag64BitHeader : EtwEventHeader.Flag32BitHeader));
        record->Header.ProviderId = provider;
        record->Header.Opcode = type;
        record->Header.Version = version;
        record->Header.Level = level;
    }

    private static bool SetPayload(EtwEventRecord* record, EtlBufferStream stream, int offset, int length)
    {
        record->UserData = (nint)(stream.Bytes + offset);
        record->UserDataLength = (ushort)length;
        return true;
    }

    /// <summary>An EVENT_HEADER record: the header as stored, then extended items, then the payload.</summary>
    private bool EventHeader(EtwEventRecord* record, EtlBufferStream stream, EtlBytes view, int p, int size, bool is64)
    {
        var header = MemoryMarshal.Read<EtwEventHeader>(view.Slice(p, 80, "an event header"));
        header.Size = 80;
        header.HeaderType = 0;
        header.Flags = (ushort)((header.Flags & ~(EtwEventHeader.Flag32BitHeader | EtwEventHeader.Flag64BitHeader))
            | (is64 ? EtwEventHeader.Flag64BitHeader : EtwEventHeader.Flag32BitHeader));
        record->Header = header;
        var q = p + 80;
        var end = p + size;
        if ((header.Flags & EtwEventHeader.FlagExtendedInfo) != 0)
        {
            // Each item: reserved u16, type u16, linkage u16 (bit 0: another item follows), size u16, data; 8-aligned.
            var count = 0;
            while (true)
            {
                if (q + 8 > end)
                {
                    throw new EtlFormatException(view.FileOffset + q, "an event's extended data runs past the event");
                }

                var type = view.U16(q + 2, "an extended item's type");
                var linkage = view.U16(q + 4, "an extended item's linkage");
                var dataSize = view.U16(q + 6, "an extended item's size");
                if (q + 8 + dataSize > end)
                {
                    throw new EtlFormatException(view.FileOffset + q, $"an extended item of {dataSize} bytes runs past its event");
                }

                if (count < MaxExtendedItems)
                {
                    _extended[count] = new EtwExtendedDataItem { ExtType = type, DataSize = dataSize, DataPtr = (ulong)(stream.Bytes + q + 8) };
                    count++;
                }
                else
                {
                    Counts.Skip("extended items beyond 16 on one event");
                }

                q = (q + 8 + dataSize + 7) & ~7;
                if ((linkage & 1) == 0)
                {
                    break;
                }
            }

            record->ExtendedDataCount = (ushort)count;
            record->ExtendedData = _extended;
        }

        if (q > end)
        {
            throw new EtlFormatException(view.FileOffset + p, "an event's extended data runs past the event");
        }

        return SetPayload(record, stream, q, end - q);
    }

    private void Raise(EtwEventRecord* record)
    {
        if (ProcessFilter is { } only && (record->Header.Flags & EtwEventHeader.FlagClassicHeader) == 0 && record->Header.ProcessId != only)
        {
            return;
        }

        Counts.EventsRaised++;
        RecordObserver?.Invoke(*record);
        var template = TraceEventInternals.Lookup(this, record);
        if (TraceEventInternals.NeedsFixup(template))
        {
            if (!_fixups.TryGetValue(template, out var fixup))
            {
                fixup = TraceEventInternals.FixupOf(template);
                _fixups.Add(template, fixup);
            }

            fixup();
        }

        Dispatch(template);
    }
}
