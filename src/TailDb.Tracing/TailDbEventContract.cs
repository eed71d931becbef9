namespace TailDb.Tracing;

/// <summary>
/// The names a trace consumer may rely on. The analyzer and the load test know the store only
/// through these; the store's <c>TailDbEventSource</c> cannot reference this library (the store
/// depends on the BCL alone), so tests/TailDb.Tests' EventContractTests check that its manifest
/// says exactly the same.
/// </summary>
public static class TailDbEventContract
{
    public const string ProviderName = "TailDb";

    /// <summary>Task names: TraceEvent shows an event as "Task/Start" and "Task/Stop".</summary>
    public static class Activities
    {
        public const string Get = "Get";
        public const string Put = "Put";
        public const string Delete = "Delete";
        public const string FileRead = "FileRead";
        public const string Fsync = "Fsync";
        public const string Compaction = "Compaction";
        public const string CacheEviction = "CacheEviction";

        /// <summary>The activities that are client requests (the rest nest inside them or run in the background).</summary>
        public static readonly string[] Requests = [Get, Put, Delete];
    }

    public static class Events
    {
        public const string CorruptRecord = "CorruptRecord";
        public const string StoreFaulted = "StoreFaulted";
        public const string TailTruncated = "TailTruncated";
        public const string ReadFailed = "ReadFailed";
    }

    /// <summary>Payload field names, exactly as the EventSource method parameters spell them.</summary>
    public static class Fields
    {
        public const string KeyLength = "keyLength";
        public const string KeyHash = "keyHash";
        public const string ValueBytes = "valueBytes";
        public const string Hit = "hit";
        public const string Found = "found";
        public const string Segment = "segment";
        public const string Offset = "offset";
        public const string Bytes = "bytes";
        public const string BatchSize = "batchSize";
        public const string Segments = "segments";
        public const string LiveRecords = "liveRecords";
        public const string BytesReclaimed = "bytesReclaimed";
        public const string TargetBytes = "targetBytes";
        public const string Evicted = "evicted";
        public const string BytesFreed = "bytesFreed";
        public const string Reason = "reason";
        public const string BytesDropped = "bytesDropped";
    }

    /// <summary>Event ids. A Stop is its Start + 1, or EventSource does not pair them.</summary>
    public static class EventIds
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

    public static class Keywords
    {
        /// <summary>Get/Put/Delete.</summary>
        public const long Requests = 0x1;
        /// <summary>FileRead, Fsync, Compaction, corruption and recovery.</summary>
        public const long Storage = 0x2;
        /// <summary>Cache eviction.</summary>
        public const long Cache = 0x4;
        /// <summary>Compaction and cache eviction (each also under Storage or Cache): what a recording of requests only keeps of the store.</summary>
        public const long Upkeep = 0x8;
    }
}
