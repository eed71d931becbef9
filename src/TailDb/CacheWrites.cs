namespace TailDb;

/// <summary>What a write does to the value cache.</summary>
public enum CacheWrites
{
    /// <summary>
    /// The write caches its value: a read right after it hits. A write of a key cached with the
    /// same length rewrites the value in place, as <see cref="Update"/> does, and allocates
    /// nothing; a key's first write, or one of another length, allocates its slot (under the
    /// writer's lock, once per key rather than once per write).
    /// </summary>
    Through,

    /// <summary>
    /// The write drops the key's cached value, and the next read fills it from the log. A write
    /// allocates nothing for the cache, so a write-heavy load does not churn replaced copies through
    /// the GC's older generations (measured in docs/server.md: pipelined SETs 1.5x faster, gen2
    /// collections gone).
    /// </summary>
    Invalidate,

    /// <summary>
    /// The write overwrites the key's cached value in place when the new value has the same
    /// length, and drops it otherwise (as <see cref="Invalidate"/>). It allocates nothing either
    /// way, and a key that was being read stays cached through its writes: the read after the
    /// write hits. Readers copy a cached value under a per-value version and copy again if a
    /// write overwrote it meanwhile (docs/store.md).
    /// </summary>
    Update,
}
