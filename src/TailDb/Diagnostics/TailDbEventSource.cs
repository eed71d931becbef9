using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;

namespace TailDb.Diagnostics;

/// <summary>
/// TailDb's request and storage events. Methods named XxxStart/XxxStop get Start/Stop opcodes and
/// a task named Xxx, so PerfView and TraceEvent pair them as activities. The store writes through the internal overloads that carry its own activity ids (see
/// NewActivityId): every request's Start/Stop share an ActivityId and nested Starts (FileRead, Fsync)
/// carry the request's id as RelatedActivityId, with or without TplEventSource keyword 0x80. The
/// public methods are the manifest (and let test workloads emit events; their ids then come from
/// TPL's ActivityTracker when 0x80 is on).
/// No explicit Guid: PerfView's activity views expect the GUID hashed from the name.
/// Every public method is guarded by IsEnabled at the call site and writes through
/// WriteEventCore so an enabled event does not box its arguments.
/// </summary>
[EventSource(Name = ProviderName)]
public sealed class TailDbEventSource : EventSource
{
    /// <summary>The provider name; consumers take it, the ids and the field names from TailDb.Tracing's TailDbEventContract.</summary>
    public const string ProviderName = "TailDb";

    public static readonly TailDbEventSource Log = new();

    private TailDbEventSource()
    {
    }

    public static class Keywords
    {
        /// <summary>Get/Put/Delete.</summary>
        public const EventKeywords Requests = (EventKeywords)0x1;
        /// <summary>FileRead, Fsync, Compaction, corruption and recovery.</summary>
        public const EventKeywords Storage = (EventKeywords)0x2;
        /// <summary>Cache eviction.</summary>
        public const EventKeywords Cache = (EventKeywords)0x4;
        /// <summary>
        /// Compaction and cache eviction again: the store's background work, a handful of events a
        /// second, which a recording of requests only (no per-request store events) still wants.
        /// </summary>
        public const EventKeywords Upkeep = (EventKeywords)0x8;
    }

    /// <summary>
    /// The store cannot reference TailDb.Tracing (it depends on the BCL alone), so it spells its ids
    /// here; EventContractTests check they are exactly TailDbEventContract's. A Stop is its Start + 1,
    /// or EventSource does not pair them.
    /// </summary>
    internal static class EventIds
    {
        public const int GetStart = 1;
        public const int GetStop = 2;
        public const int PutStart = 3;
        public const int PutStop = 4;
        public const int DeleteStart = 5;
        public const int DeleteStop = 6;
        public const int FileReadStart = 7;
        public const int FileReadStop = 8;
        public const int FsyncStart = 9;
        public const int FsyncStop = 10;
        public const int CompactionStart = 11;
        public const int CompactionStop = 12;
        public const int CacheEvictionStart = 13;
        public const int CacheEvictionStop = 14;
        public const int CorruptRecord = 20;
        public const int StoreFaulted = 21;
        public const int TailTruncated = 22;
        public const int ReadFailed = 23;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool RequestsEnabled() => IsEnabled(EventLevel.Informational, Keywords.Requests);

    // Rewritten by every command (a session or listener starting, changing or stopping). EventSource
    // turns a source's level and keywords down only after OnEventCommand returns, so the command
    // that stops the last request session leaves this set; the next command clears it. It errs
    // only towards "maybe".
    private static volatile bool s_requestsMaybeOn;

    /// <summary>
    /// False only when no session or listener has the Requests keyword on: one static read, which
    /// the cache hit tests before <see cref="RequestsEnabled"/> (the instance check reads three
    /// fields). True means "ask <see cref="RequestsEnabled"/>".
    /// </summary>
    internal static bool RequestsMaybeOn
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => s_requestsMaybeOn;
    }

    protected override void OnEventCommand(EventCommandEventArgs command) =>
        s_requestsMaybeOn = IsEnabled(EventLevel.Informational, Keywords.Requests);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool StorageEnabled() => IsEnabled(EventLevel.Informational, Keywords.Storage);

    /// <summary>Cache eviction's events: under Cache or Upkeep.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool CacheEnabled() => IsEnabled(EventLevel.Informational, Keywords.Cache | Keywords.Upkeep);

    /// <summary>Compaction's events: under Storage or Upkeep.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool CompactionEnabled() => IsEnabled(EventLevel.Informational, Keywords.Storage | Keywords.Upkeep);

    [Event(EventIds.GetStart, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void GetStart(int keyLength, long keyHash) => WriteIntLong(EventIds.GetStart, keyLength, keyHash);

    [Event(EventIds.GetStop, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void GetStop(bool hit, bool found, int valueBytes) => WriteBoolBoolInt(EventIds.GetStop, hit, found, valueBytes);

    [Event(EventIds.PutStart, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void PutStart(int keyLength, long keyHash, int valueBytes) => WriteIntLongInt(EventIds.PutStart, keyLength, keyHash, valueBytes);

    [Event(EventIds.PutStop, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void PutStop(int bytes) => WriteEvent(EventIds.PutStop, bytes);

    [Event(EventIds.DeleteStart, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void DeleteStart(int keyLength, long keyHash) => WriteIntLong(EventIds.DeleteStart, keyLength, keyHash);

    [Event(EventIds.DeleteStop, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void DeleteStop(bool found) => WriteEvent(EventIds.DeleteStop, found ? 1 : 0);

    [Event(EventIds.FileReadStart, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FileReadStart(int segment, long offset, int bytes) => WriteIntLongInt(EventIds.FileReadStart, segment, offset, bytes);

    [Event(EventIds.FileReadStop, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FileReadStop(int bytes) => WriteEvent(EventIds.FileReadStop, bytes);

    [Event(EventIds.FsyncStart, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FsyncStart(int batchSize) => WriteEvent(EventIds.FsyncStart, batchSize);

    [Event(EventIds.FsyncStop, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FsyncStop(int batchSize) => WriteEvent(EventIds.FsyncStop, batchSize);

    [Event(EventIds.CompactionStart, Level = EventLevel.Informational, Keywords = Keywords.Storage | Keywords.Upkeep)]
    public void CompactionStart(int segments) => WriteEvent(EventIds.CompactionStart, segments);

    [Event(EventIds.CompactionStop, Level = EventLevel.Informational, Keywords = Keywords.Storage | Keywords.Upkeep)]
    public void CompactionStop(long liveRecords, long bytesReclaimed) => WriteEvent(EventIds.CompactionStop, liveRecords, bytesReclaimed);

    [Event(EventIds.CacheEvictionStart, Level = EventLevel.Informational, Keywords = Keywords.Cache | Keywords.Upkeep)]
    public void CacheEvictionStart(long targetBytes) => WriteEvent(EventIds.CacheEvictionStart, targetBytes);

    [Event(EventIds.CacheEvictionStop, Level = EventLevel.Informational, Keywords = Keywords.Cache | Keywords.Upkeep)]
    public void CacheEvictionStop(int evicted, long bytesFreed) => WriteIntLong(EventIds.CacheEvictionStop, evicted, bytesFreed);

    [Event(EventIds.CorruptRecord, Level = EventLevel.Warning, Keywords = Keywords.Storage)]
    public void CorruptRecord(int segment, long offset, string reason) => WriteEvent(EventIds.CorruptRecord, segment, offset, reason);

    [Event(EventIds.StoreFaulted, Level = EventLevel.Error, Keywords = Keywords.Storage)]
    public void StoreFaulted(string reason) => WriteEvent(EventIds.StoreFaulted, reason);

    [Event(EventIds.TailTruncated, Level = EventLevel.Warning, Keywords = Keywords.Storage)]
    public void TailTruncated(int segment, long offset, long bytesDropped) => WriteIntLongLong(EventIds.TailTruncated, segment, offset, bytesDropped);

    [Event(EventIds.ReadFailed, Level = EventLevel.Warning, Keywords = Keywords.Storage)]
    public void ReadFailed(int segment, long offset, string reason) => WriteEvent(EventIds.ReadFailed, segment, offset, reason);

    // The store's own activity ids. TPL's ActivityTracker (TplEventSource keyword 0x80) assigns
    // ids to Start events but allocates ~350 B per request doing it (async-local chains, names).
    // The store instead makes an id per request (and per nested FileRead/Fsync) from a counter,
    // sets it as the thread's activity id for exactly one event write, and restores the previous
    // id at once: nothing is left on the thread, so an async request may stop on another thread.
    // Starts are written with WriteEventWithRelatedActivityIdCore, whose non-null related id also
    // keeps the ActivityTracker out of them when another tool's session has 0x80 on; a request's
    // related id is the id the calling thread had (an enclosing activity's, e.g. a server command's).

    // Ids are handed to threads in blocks, so making one is a thread-static increment.
    private const int IdBlock = 4096;
    private static readonly int ProcessId = Environment.ProcessId;
    private static long s_nextBlock;
    [ThreadStatic]
    private static long t_nextId;
    [ThreadStatic]
    private static long t_blockEnd;

    /// <summary>
    /// A process-unique activity id (never the empty Guid) in EventSource's activity-path format,
    /// which is what PerfView's StartStopActivityComputer accepts as an activity: the path
    /// /processId/n/ in nibble-coded numbers (0xF: four little-endian bytes follow, 0x0 ends the
    /// list) in bytes 0..11, and bytes 12..15 = the sum of the first three uints + 0x599D99AD.
    /// n is the low 32 bits of the counter: unique among the activities of any one trace window.
    /// Public so the activities that enclose the store's (the load test's Request, the server's
    /// Command) take their ids from the same counter and never collide with the store's.
    /// </summary>
    [NonEvent]
    public static Guid NewActivityId()
    {
        if (t_nextId == t_blockEnd)
        {
            long start = Interlocked.Add(ref s_nextBlock, IdBlock) - IdBlock + 1;
            t_nextId = start;
            t_blockEnd = start + IdBlock;
        }

        uint n = (uint)t_nextId++;
        Span<byte> bytes = stackalloc byte[16];
        bytes[0] = 0xF0;
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(bytes[1..], (uint)ProcessId);
        bytes[5] = 0xF0;
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(bytes[6..], n);
        bytes[10] = 0;
        bytes[11] = 0;
        uint check = unchecked(
            System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes) +
            System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes[4..]) +
            System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(bytes[8..]) + 0x599D99AD);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(bytes[12..], check);
        return new Guid(bytes);
    }

    /// <summary>The calling thread's activity id (an enclosing activity's, or empty): a request's parent.</summary>
    [NonEvent]
    internal static Guid CurrentParent() => CurrentThreadActivityId;

    [NonEvent]
    internal void GetStart(Guid activity, Guid parent, int keyLength, long keyHash)
    {
        Guid previous = Enter(activity);
        WriteStart(EventIds.GetStart, parent, keyLength, keyHash, 0, 2);
        SetCurrentThreadActivityId(previous);
    }

    [NonEvent]
    internal void GetStop(Guid activity, bool hit, bool found, int valueBytes)
    {
        Guid previous = Enter(activity);
        WriteBoolBoolInt(EventIds.GetStop, hit, found, valueBytes);
        SetCurrentThreadActivityId(previous);
    }

    [NonEvent]
    internal void PutStart(Guid activity, Guid parent, int keyLength, long keyHash, int valueBytes)
    {
        Guid previous = Enter(activity);
        WriteStart(EventIds.PutStart, parent, keyLength, keyHash, valueBytes, 3);
        SetCurrentThreadActivityId(previous);
    }

    [NonEvent]
    internal void DeleteStart(Guid activity, Guid parent, int keyLength, long keyHash)
    {
        Guid previous = Enter(activity);
        WriteStart(EventIds.DeleteStart, parent, keyLength, keyHash, 0, 2);
        SetCurrentThreadActivityId(previous);
    }

    /// <summary>PutStop (bytes) or DeleteStop (found as 0/1): both one int.</summary>
    [NonEvent]
    internal unsafe void WriteStop(Guid activity, int eventId, int value)
    {
        Guid previous = Enter(activity);
        EventData* data = stackalloc EventData[1];
        data[0] = new EventData { DataPointer = (nint)(&value), Size = sizeof(int) };
        WriteEventCore(eventId, 1, data);
        SetCurrentThreadActivityId(previous);
    }

    /// <summary>FileReadStart nested in <paramref name="parent"/> (the request); returns the FileRead's own id.</summary>
    [NonEvent]
    internal Guid FileReadStart(Guid parent, int segment, long offset, int bytes)
    {
        Guid activity = NewActivityId();
        Guid previous = Enter(activity);
        WriteStart(EventIds.FileReadStart, parent, segment, offset, bytes, 3);
        SetCurrentThreadActivityId(previous);
        return activity;
    }

    /// <summary>FsyncStart nested in <paramref name="parent"/> (the group-commit leader's request); returns the Fsync's own id.</summary>
    [NonEvent]
    internal unsafe Guid FsyncStart(Guid parent, int batchSize) => StartOne(EventIds.FsyncStart, parent, &batchSize, sizeof(int));

    /// <summary>
    /// CompactionStart under an id of its own (related to whatever activity the thread is in), so a
    /// recording without TplEventSource 0x80 still pairs it; returns the id for <see cref="EndCompaction"/>.
    /// </summary>
    [NonEvent]
    internal unsafe Guid BeginCompaction(int segments) => StartOne(EventIds.CompactionStart, null, &segments, sizeof(int));

    [NonEvent]
    internal unsafe void EndCompaction(Guid activity, long liveRecords, long bytesReclaimed)
    {
        Guid previous = Enter(activity);
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&liveRecords), Size = sizeof(long) };
        data[1] = new EventData { DataPointer = (nint)(&bytesReclaimed), Size = sizeof(long) };
        WriteEventCore(EventIds.CompactionStop, 2, data);
        SetCurrentThreadActivityId(previous);
    }

    /// <summary>CacheEvictionStart under an id of its own (see <see cref="BeginCompaction"/>).</summary>
    [NonEvent]
    internal unsafe Guid BeginCacheEviction(long targetBytes) => StartOne(EventIds.CacheEvictionStart, null, &targetBytes, sizeof(long));

    /// <summary>
    /// A Start with one value under a new activity id, related to <paramref name="parent"/> or, when
    /// null, to whatever activity the calling thread is in; returns the new id.
    /// </summary>
    [NonEvent]
    private unsafe Guid StartOne(int eventId, Guid? parent, void* value, int size)
    {
        Guid activity = NewActivityId();
        Guid previous = Enter(activity);
        Guid related = parent ?? previous;
        EventData data = new() { DataPointer = (nint)value, Size = size };
        WriteEventWithRelatedActivityIdCore(eventId, &related, 1, &data);
        SetCurrentThreadActivityId(previous);
        return activity;
    }

    [NonEvent]
    internal void EndCacheEviction(Guid activity, int evicted, long bytesFreed)
    {
        Guid previous = Enter(activity);
        WriteIntLong(EventIds.CacheEvictionStop, evicted, bytesFreed);
        SetCurrentThreadActivityId(previous);
    }

    [NonEvent]
    private static Guid Enter(Guid activity)
    {
        SetCurrentThreadActivityId(activity, out Guid previous);
        return previous;
    }

    /// <summary>A Start with payload (int a, long b[, int c]) and the given parent as related activity id.</summary>
    [NonEvent]
    private unsafe void WriteStart(int eventId, Guid parent, int a, long b, int c, int count)
    {
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&a), Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)(&b), Size = sizeof(long) };
        data[2] = new EventData { DataPointer = (nint)(&c), Size = sizeof(int) };
        WriteEventWithRelatedActivityIdCore(eventId, &parent, count, data);
    }

    // EventSource has no (int, long) style overloads; the params object[] fallback would box.
    [NonEvent]
    private unsafe void WriteIntLong(int eventId, int a, long b)
    {
        EventData* data = stackalloc EventData[2];
        data[0] = new EventData { DataPointer = (nint)(&a), Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)(&b), Size = sizeof(long) };
        WriteEventCore(eventId, 2, data);
    }

    [NonEvent]
    private unsafe void WriteIntLongInt(int eventId, int a, long b, int c)
    {
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&a), Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)(&b), Size = sizeof(long) };
        data[2] = new EventData { DataPointer = (nint)(&c), Size = sizeof(int) };
        WriteEventCore(eventId, 3, data);
    }

    [NonEvent]
    private unsafe void WriteIntLongLong(int eventId, int a, long b, long c)
    {
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&a), Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)(&b), Size = sizeof(long) };
        data[2] = new EventData { DataPointer = (nint)(&c), Size = sizeof(long) };
        WriteEventCore(eventId, 3, data);
    }

    // EventSource serialises bool as a 4-byte Win32 BOOL.
    [NonEvent]
    private unsafe void WriteBoolBoolInt(int eventId, bool a, bool b, int c)
    {
        int ai = a ? 1 : 0;
        int bi = b ? 1 : 0;
        EventData* data = stackalloc EventData[3];
        data[0] = new EventData { DataPointer = (nint)(&ai), Size = sizeof(int) };
        data[1] = new EventData { DataPointer = (nint)(&bi), Size = sizeof(int) };
        data[2] = new EventData { DataPointer = (nint)(&c), Size = sizeof(int) };
        WriteEventCore(eventId, 3, data);
    }
}
