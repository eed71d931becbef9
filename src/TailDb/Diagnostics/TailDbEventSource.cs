using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;
using C = TailDb.Diagnostics.TailDbEventContract;

namespace TailDb.Diagnostics;

/// <summary>
/// TailDb's request and storage events. Methods named XxxStart/XxxStop get Start/Stop opcodes and
/// a task named Xxx, so PerfView and TraceEvent pair them as activities; when
/// TplEventSource keyword 0x80 is on, each Start gets an ActivityId and nested Starts
/// (FileRead, Fsync) carry the request's id as RelatedActivityId.
/// No explicit Guid: PerfView's activity views expect the GUID hashed from the name.
/// Every public method is guarded by IsEnabled at the call site and writes through
/// WriteEventCore so an enabled event does not box its arguments.
/// </summary>
[EventSource(Name = C.ProviderName)]
public sealed class TailDbEventSource : EventSource
{
    public static readonly TailDbEventSource Log = new();

    private TailDbEventSource()
    {
    }

    public static class Keywords
    {
        public const EventKeywords Requests = (EventKeywords)C.Keywords.Requests;
        public const EventKeywords Storage = (EventKeywords)C.Keywords.Storage;
        public const EventKeywords Cache = (EventKeywords)C.Keywords.Cache;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool RequestsEnabled() => IsEnabled(EventLevel.Informational, Keywords.Requests);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool StorageEnabled() => IsEnabled(EventLevel.Informational, Keywords.Storage);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool CacheEnabled() => IsEnabled(EventLevel.Informational, Keywords.Cache);

    [Event(C.EventIds.GetStart, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void GetStart(int keyLength, long keyHash) => WriteIntLong(C.EventIds.GetStart, keyLength, keyHash);

    [Event(C.EventIds.GetStop, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void GetStop(bool hit, bool found, int valueBytes) => WriteBoolBoolInt(C.EventIds.GetStop, hit, found, valueBytes);

    [Event(C.EventIds.PutStart, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void PutStart(int keyLength, long keyHash, int valueBytes) => WriteIntLongInt(C.EventIds.PutStart, keyLength, keyHash, valueBytes);

    [Event(C.EventIds.PutStop, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void PutStop(int bytes) => WriteEvent(C.EventIds.PutStop, bytes);

    [Event(C.EventIds.DeleteStart, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void DeleteStart(int keyLength, long keyHash) => WriteIntLong(C.EventIds.DeleteStart, keyLength, keyHash);

    [Event(C.EventIds.DeleteStop, Level = EventLevel.Informational, Keywords = Keywords.Requests)]
    public void DeleteStop(bool found) => WriteEvent(C.EventIds.DeleteStop, found ? 1 : 0);

    [Event(C.EventIds.FileReadStart, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FileReadStart(int segment, long offset, int bytes) => WriteIntLongInt(C.EventIds.FileReadStart, segment, offset, bytes);

    [Event(C.EventIds.FileReadStop, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FileReadStop(int bytes) => WriteEvent(C.EventIds.FileReadStop, bytes);

    [Event(C.EventIds.FsyncStart, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FsyncStart(int batchSize) => WriteEvent(C.EventIds.FsyncStart, batchSize);

    [Event(C.EventIds.FsyncStop, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void FsyncStop(int batchSize) => WriteEvent(C.EventIds.FsyncStop, batchSize);

    [Event(C.EventIds.CompactionStart, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void CompactionStart(int segments) => WriteEvent(C.EventIds.CompactionStart, segments);

    [Event(C.EventIds.CompactionStop, Level = EventLevel.Informational, Keywords = Keywords.Storage)]
    public void CompactionStop(long liveRecords, long bytesReclaimed) => WriteEvent(C.EventIds.CompactionStop, liveRecords, bytesReclaimed);

    [Event(C.EventIds.CacheEvictionStart, Level = EventLevel.Informational, Keywords = Keywords.Cache)]
    public void CacheEvictionStart(long targetBytes) => WriteEvent(C.EventIds.CacheEvictionStart, targetBytes);

    [Event(C.EventIds.CacheEvictionStop, Level = EventLevel.Informational, Keywords = Keywords.Cache)]
    public void CacheEvictionStop(int evicted, long bytesFreed) => WriteIntLong(C.EventIds.CacheEvictionStop, evicted, bytesFreed);

    [Event(C.EventIds.CorruptRecord, Level = EventLevel.Warning, Keywords = Keywords.Storage)]
    public void CorruptRecord(int segment, long offset, string reason) => WriteEvent(C.EventIds.CorruptRecord, segment, offset, reason);

    [Event(C.EventIds.StoreFaulted, Level = EventLevel.Error, Keywords = Keywords.Storage)]
    public void StoreFaulted(string reason) => WriteEvent(C.EventIds.StoreFaulted, reason);

    [Event(C.EventIds.TailTruncated, Level = EventLevel.Warning, Keywords = Keywords.Storage)]
    public void TailTruncated(int segment, long offset, long bytesDropped) => WriteIntLongLong(C.EventIds.TailTruncated, segment, offset, bytesDropped);

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
