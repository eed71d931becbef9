namespace TailDb.LoadTest.Workloads;

public enum KeyDistribution
{
    Uniform,
    Zipf,
}

/// <summary>Where the store runs its upkeep (eviction, compaction's repointing).</summary>
public enum UpkeepPlacement
{
    /// <summary>The store as it is: a background evictor, compaction repointing in short batches.</summary>
    Background,

    /// <summary>The first design, for a before/after comparison: the request that fills the cache evicts, compaction repoints every key in one writer-lock hold.</summary>
    OnRequest,
}

public enum ReadApi
{
    /// <summary><c>TryGet</c> into a reused buffer: no allocation on a cache hit.</summary>
    ZeroCopy,

    /// <summary><c>Get</c>: a new array per found value.</summary>
    Copy,
}

/// <summary>
/// Everything that defines the requests a worker sends. The harness validates it once and hands
/// the identical record to every GC mode's worker, so modes differ only by runtimeconfig.
/// </summary>
public sealed record WorkloadOptions
{
    public double DurationSeconds { get; init; } = 10;
    public double WarmupSeconds { get; init; } = 3;

    /// <summary>Requests per second across all threads; null is a closed loop at saturation.</summary>
    public double? Rate { get; init; } = 4000;
    public int Keys { get; init; } = 100_000;
    public int ValueSize { get; init; } = 256;

    /// <summary>Every N-th put writes <see cref="LargeSize"/> bytes instead; 0 never.</summary>
    public int LargeEvery { get; init; }
    public int LargeSize { get; init; } = 256 * 1024;
    public double ReadRatio { get; init; } = 0.9;

    /// <summary>Share of the non-read requests that are deletes (the rest are puts).</summary>
    public double DeleteFraction { get; init; } = 0.1;
    public KeyDistribution Distribution { get; init; } = KeyDistribution.Uniform;
    public double ZipfTheta { get; init; } = 0.99;

    /// <summary>Cache bytes / data bytes; below 1 it sets the share of reads that go to disk.</summary>
    public double CacheFraction { get; init; } = 0.8;
    public int Threads { get; init; } = 2;
    public ReadApi Api { get; init; } = ReadApi.ZeroCopy;

    /// <summary>Garbage the request handler allocates per request, as an application would.</summary>
    public int AppAllocBytes { get; init; } = 16 * 1024;
    public Durability Durability { get; init; } = Durability.None;
    public int Seed { get; init; } = 42;

    /// <summary>Seconds between compactions, run on a thread of their own through warm-up and measurement; 0 never.</summary>
    public double CompactEverySeconds { get; init; }

    public UpkeepPlacement Upkeep { get; init; } = UpkeepPlacement.Background;

    /// <summary>Compaction's I/O budget in MiB/s (the store's CompactionBytesPerSecond); 0 unlimited.</summary>
    public double CompactionMiBPerSecond { get; init; } = new TailDbOptions { Directory = "." }.CompactionBytesPerSecond / (double)(1 << 20);

    /// <summary>The CPU priority of compaction's copy (the store's CompactionPriority).</summary>
    public CompactionPriority CompactionPriority { get; init; } = new TailDbOptions { Directory = "." }.CompactionPriority;

    public long CompactionBytesPerSecond => (long)(CompactionMiBPerSecond * (1 << 20));

    /// <summary>
    /// Open loop in bursts: every <see cref="BurstPeriodMilliseconds"/>, the period's requests all fall
    /// due in its first 1/BurstFactor, at BurstFactor times the mean rate; the mean rate is unchanged. 1: evenly spaced.
    /// </summary>
    public double BurstFactor { get; init; } = 1;

    /// <summary>How often a burst comes (with <see cref="BurstFactor"/> above 1).</summary>
    public double BurstPeriodMilliseconds { get; init; } = 50;

    /// <summary>Bytes for GC.TryStartNoGCRegion; null sizes it from the warm-up's allocation.</summary>
    public long? NoGcBudgetBytes { get; init; }

    public const int KeyBytes = 16;

    public long DataBytes => (long)Keys * (KeyBytes + ValueSize);

    /// <summary>
    /// TailDb's cache charges each entry key + value + a fixed overhead (ValueCache.EntryOverhead,
    /// internal to the store), so the capacity includes it: a fraction of 0.8 caches 80% of the keys.
    /// </summary>
    public const int StoreCacheEntryOverheadBytes = 104;

    public long CacheCapacityBytes => (long)(CacheFraction * Keys * (KeyBytes + ValueSize + StoreCacheEntryOverheadBytes));

    public int MaxValueBytes => LargeEvery > 0 ? Math.Max(ValueSize, LargeSize) : ValueSize;

    /// <summary>Returns the first problem, naming the flag, or null when the workload is runnable.</summary>
    public string? Validate()
    {
        if (!(DurationSeconds > 0) || double.IsInfinity(DurationSeconds))
        {
            return $"--duration must be a positive number of seconds (got {DurationSeconds})";
        }

        if (!(WarmupSeconds >= 0) || double.IsInfinity(WarmupSeconds))
        {
            return $"--warmup must be zero or a positive number of seconds (got {WarmupSeconds})";
        }

        if (Rate is { } rate && (!(rate > 0) || double.IsInfinity(rate)))
        {
            return $"--rate must be a positive number of requests per second or 'max' (got {rate})";
        }

        if (Keys < 1)
        {
            return $"--keys must be at least 1 (got {Keys})";
        }

        if (ValueSize < 1 || ValueSize > 64 << 20)
        {
            return $"--value-size must be between 1 and {64 << 20} bytes (got {ValueSize})";
        }

        if (LargeEvery < 0)
        {
            return $"--large-every must be 0 (never) or a positive count (got {LargeEvery})";
        }

        if (LargeSize < 1 || LargeSize > 64 << 20)
        {
            return $"--large-size must be between 1 and {64 << 20} bytes (got {LargeSize})";
        }

        if (!(ReadRatio >= 0 && ReadRatio <= 1))
        {
            return $"--read-ratio must be between 0 and 1 (got {ReadRatio})";
        }

        if (!(DeleteFraction >= 0 && DeleteFraction <= 1))
        {
            return $"--delete-fraction must be between 0 and 1 (got {DeleteFraction})";
        }

        if (!(ZipfTheta > 0 && ZipfTheta < 1))
        {
            return $"--zipf-theta must be between 0 and 1, exclusive (got {ZipfTheta})";
        }

        if (!(CacheFraction >= 0) || double.IsInfinity(CacheFraction))
        {
            return $"--cache-fraction must be zero or positive (got {CacheFraction})";
        }

        if (Threads < 1 || Threads > 256)
        {
            return $"--threads must be between 1 and 256 (got {Threads})";
        }

        if (AppAllocBytes < 0)
        {
            return $"--app-alloc must be zero or a positive number of bytes (got {AppAllocBytes})";
        }

        if (!(CompactEverySeconds >= 0) || double.IsInfinity(CompactEverySeconds))
        {
            return $"--compact-every must be zero (never) or a positive number of seconds (got {CompactEverySeconds})";
        }

        if (!(CompactionMiBPerSecond >= 0) || double.IsInfinity(CompactionMiBPerSecond))
        {
            return $"--compaction-rate must be zero (unlimited) or a positive number of MiB/s (got {CompactionMiBPerSecond})";
        }

        if (!(BurstFactor >= 1) || double.IsInfinity(BurstFactor))
        {
            return $"--burst-factor must be 1 (evenly spaced) or more (got {BurstFactor})";
        }

        if (!(BurstPeriodMilliseconds > 0) || double.IsInfinity(BurstPeriodMilliseconds))
        {
            return $"--burst-period-ms must be a positive number of milliseconds (got {BurstPeriodMilliseconds})";
        }

        if (BurstFactor > 1 && Rate is null)
        {
            return "--burst-factor needs an open loop (--rate N): a closed loop has no schedule to squeeze";
        }

        if (NoGcBudgetBytes is <= 0)
        {
            return $"--nogc-budget must be a positive number of bytes (got {NoGcBudgetBytes})";
        }

        return null;
    }

    public string Describe() =>
        $"{(Rate is { } r ? $"open loop at {r:0.##} req/s" : "closed loop (--rate max)")}" +
        (BurstFactor > 1 ? $" in bursts ({BurstFactor:0.##}x for {BurstPeriodMilliseconds / BurstFactor:0.###} ms every {BurstPeriodMilliseconds:0.##} ms)" : "") +
        $", {Threads} threads, " +
        $"{DurationSeconds:0.##} s measured after {WarmupSeconds:0.##} s warm-up; {Keys:N0} keys × {ValueSize} B" +
        (LargeEvery > 0 ? $" (every {LargeEvery}th put {LargeSize} B)" : "") +
        $", {ReadRatio:P0} reads, {Distribution.ToString().ToLowerInvariant()}" +
        (Distribution == KeyDistribution.Zipf ? $" θ={ZipfTheta}" : "") +
        $", cache holds {CacheFraction:P0} of keys, api {(Api == ReadApi.ZeroCopy ? "zero-copy" : "copy")}, app-alloc {AppAllocBytes} B/req, " +
        $"durability {Durability.ToString().ToLowerInvariant()}, seed {Seed}" +
        (CompactEverySeconds > 0 ? $", compaction every {CompactEverySeconds:0.##} s" : "") +
        // The first design never paced: the pacing settings mean something with upkeep off requests only.
        (CompactEverySeconds > 0 && Upkeep == UpkeepPlacement.Background
            ? $" ({(CompactionMiBPerSecond > 0 ? $"{CompactionMiBPerSecond:0.##} MiB/s" : "unpaced")}, priority {CompactionPriority.ToString().ToLowerInvariant()})"
            : "") +
        (Upkeep == UpkeepPlacement.OnRequest ? ", upkeep on requests" : "");
}
