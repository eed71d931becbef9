using TailDb.Storage;

namespace TailDb;

/// <summary>How to open a <see cref="TailDbStore"/>.</summary>
public sealed record TailDbOptions
{
    /// <summary>The store's directory; created if missing.</summary>
    public required string Directory { get; init; }

    /// <summary>Upper bound of the value cache in bytes (values, keys and per-entry overhead); 0 disables it.</summary>
    public long CacheCapacityBytes { get; init; } = 64L << 20;

    /// <summary>Whether writes fill the value cache (<see cref="CacheWrites.Through"/>, the default), only rewrite a value it holds (<see cref="CacheWrites.Update"/>), or drop it (<see cref="CacheWrites.Invalidate"/>).</summary>
    public CacheWrites CacheWrites { get; init; } = CacheWrites.Through;

    /// <summary>
    /// Pre-sizes the key directory and the cache: growing a ConcurrentDictionary re-allocates every
    /// node under all its locks, a p99.9 spike we would rather pay at open.
    /// </summary>
    public int ExpectedKeyCount { get; init; } = 1 << 16;

    /// <summary>The store's default <see cref="SegmentMaxBytes"/>.</summary>
    public const long DefaultSegmentMaxBytes = 64L << 20;

    /// <summary>The active segment file is sealed and a new one started past this size.</summary>
    public long SegmentMaxBytes { get; init; } = DefaultSegmentMaxBytes;

    /// <summary>Largest value a Put accepts.</summary>
    public int MaxValueBytes { get; init; } = 1 << 20;

    public Durability Durability { get; init; } = Durability.None;

    /// <summary>Open without the writer lock: no writes, no repair (damage is only reported).</summary>
    public bool ReadOnly { get; init; }

    /// <summary>
    /// Compaction's I/O budget in bytes per second, reads and writes together, spent in 64 KiB
    /// chunks (RocksDB's rate_limiter): 32 MiB/s by default, so compacting 1 GiB of live data
    /// takes about a minute and never takes the disk from requests for more than a chunk at a
    /// time. 0 removes the budget (compaction still yields the core between chunks).
    /// </summary>
    public long CompactionBytesPerSecond { get; init; } = 32L << 20;

    /// <summary>
    /// Compaction pushes what it has written to the device every this many bytes (start one range,
    /// wait for the one before; RocksDB's bytes_per_sync), so neither its closing fsync nor a
    /// request's fsync has tens of megabytes of its dirty pages to flush. 1 MiB by default; 0
    /// leaves it all to the closing fsync.
    /// </summary>
    public long CompactionSyncBytes { get; init; } = 1L << 20;

    /// <summary>The CPU priority of compaction's copying; <see cref="CompactionPriority.Low"/> by default.</summary>
    public CompactionPriority CompactionPriority { get; init; } = CompactionPriority.Low;

    /// <summary>
    /// Whether this store writes its per-request events (TailDbEventSource's Get/Put/Delete and the
    /// FileReads inside them) when a session or listener turns them on. False for a store whose
    /// requests are not the application's: the server's warm-up runs its scratch store so, and a
    /// trace of the server then holds only real requests. Read after the session's own check, so
    /// an untraced store pays nothing for it.
    /// </summary>
    public bool WritesEvents { get; init; } = true;

    /// <summary>
    /// Where the writers that await a group commit resume (<see cref="Durability.Fsync"/>): the
    /// commit's leader queues one task to this scheduler, and that task runs every waiter's
    /// continuation in turn. An event-loop server passes its loop's scheduler, so the replies after
    /// an fsync run where the connections live, and one wake-up serves them all. Null (the
    /// default): each waiter resumes on the thread pool on its own.
    /// </summary>
    public TaskScheduler? DurableWaitersScheduler { get; init; }

    /// <summary>Where eviction and compaction's repointing run (the load test's before/after switch).</summary>
    internal UpkeepMode Upkeep { get; init; } = UpkeepMode.Background;

    /// <summary>The file seam; tests swap in a failing device for fault injection.</summary>
    internal IStorageDevice? Device { get; init; }

    internal void Validate()
    {
        if (string.IsNullOrWhiteSpace(Directory))
        {
            throw new ArgumentException("TailDbOptions.Directory must name a directory.", nameof(Directory));
        }

        if (CacheCapacityBytes < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(CacheCapacityBytes), CacheCapacityBytes, "The cache capacity must be 0 (no cache) or positive.");
        }

        if (ExpectedKeyCount < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(ExpectedKeyCount), ExpectedKeyCount, "The expected key count must not be negative.");
        }

        if (CompactionBytesPerSecond < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(CompactionBytesPerSecond), CompactionBytesPerSecond, "The compaction budget must be 0 (unlimited) or positive bytes per second.");
        }

        if (CompactionSyncBytes < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(CompactionSyncBytes), CompactionSyncBytes, "CompactionSyncBytes must be 0 (sync only at the end) or positive.");
        }

        if (!Enum.IsDefined(CompactionPriority))
        {
            throw new ArgumentOutOfRangeException(nameof(CompactionPriority), CompactionPriority, "Not a CompactionPriority.");
        }

        if (MaxValueBytes < 0 || MaxValueBytes > RecordFormat.MaxValueBytesLimit)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxValueBytes), MaxValueBytes, $"MaxValueBytes must be between 0 and {RecordFormat.MaxValueBytesLimit}.");
        }

        if (SegmentMaxBytes < RecordFormat.FileHeaderSize + RecordFormat.HeaderSize + 1)
        {
            throw new ArgumentOutOfRangeException(nameof(SegmentMaxBytes), SegmentMaxBytes, "SegmentMaxBytes is too small to hold a record.");
        }

        if (SegmentMaxBytes > KeyDir.MaxOffset / 2)
        {
            throw new ArgumentOutOfRangeException(nameof(SegmentMaxBytes), SegmentMaxBytes, $"SegmentMaxBytes is at most {KeyDir.MaxOffset / 2} (the key directory addresses offsets below 1 TiB).");
        }
    }
}
