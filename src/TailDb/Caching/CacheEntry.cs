namespace TailDb.Caching;

/// <summary>A cached value. Immutable except for the CLOCK reference bit.</summary>
internal sealed class CacheEntry(byte[] value, long cost)
{
    public byte[] Value { get; } = value;

    /// <summary>Bytes charged against the capacity: value, key and per-entry overhead.</summary>
    public long Cost { get; } = cost;

    /// <summary>Second-chance bit: set by a hit, cleared by the clock hand passing over it.</summary>
    public bool Referenced { get; set; }
}
