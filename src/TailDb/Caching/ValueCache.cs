using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb.Caching;

/// <summary>
/// Values of recently used keys, bounded by bytes, evicted by CLOCK (second chance): a hit only
/// sets a bit, so the hit path is a dictionary lookup plus a copy, with no list to relink and no
/// lock. The clock hand is an enumerator over the dictionary itself: ConcurrentDictionary
/// enumerates without taking locks and tolerates concurrent changes, so no separate ring of
/// entries has to be kept in step with it.
/// </summary>
internal sealed class ValueCache
{
    /// <summary>
    /// Charged per entry on top of the key and value bytes: the dictionary node (~48 B), the entry
    /// (~32 B) and the value array header (~24 B). The key array is shared with the key directory.
    /// </summary>
    public const int EntryOverhead = 104;

    private readonly ConcurrentDictionary<byte[], CacheEntry> _map;
    private readonly ConcurrentDictionary<byte[], CacheEntry>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private readonly long _capacity;
    private readonly long _lowWatermark;
    private readonly TailDbTelemetry _telemetry;
    private readonly Lock _evictLock = new();
    private IEnumerator<KeyValuePair<byte[], CacheEntry>>? _hand;
    private long _bytes;

    public ValueCache(long capacityBytes, int expectedKeys, TailDbTelemetry telemetry)
    {
        _capacity = capacityBytes;
        // Evict a little below the bound so a full cache does not run the clock on every insert.
        _lowWatermark = capacityBytes - (capacityBytes / 32);
        _telemetry = telemetry;
        _map = new ConcurrentDictionary<byte[], CacheEntry>(
            Environment.ProcessorCount * 4, capacityBytes == 0 ? 31 : Math.Max(31, expectedKeys), ByteKeyComparer.Instance);
        _lookup = _map.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public bool Enabled => _capacity > 0;

    public long CapacityBytes => _capacity;

    /// <summary>Bytes currently charged. May exceed the capacity by one entry per concurrent writer until they evict.</summary>
    public long SizeBytes => Volatile.Read(ref _bytes);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGet(ReadOnlySpan<byte> key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out byte[]? value)
    {
        if (_lookup.TryGetValue(key, out CacheEntry? entry))
        {
            // Test first: writing the bit on every hit would bounce the cache line between cores.
            if (!entry.Referenced)
            {
                entry.Referenced = true;
            }

            value = entry.Value;
            return true;
        }

        value = null;
        return false;
    }

    public bool Fits(int keyLength, int valueLength) => Cost(keyLength, valueLength) <= _capacity;

    /// <summary>Write-through from a Put (under the writer's lock, so Puts of one key apply in log order).</summary>
    public void Set(byte[] key, byte[] value)
    {
        long cost = Cost(key.Length, value.Length);
        if (cost > _capacity)
        {
            Remove(key);
            return;
        }

        var entry = new CacheEntry(value, cost);
        while (true)
        {
            if (_map.TryGetValue(key, out CacheEntry? old))
            {
                if (_map.TryUpdate(key, entry, old))
                {
                    Interlocked.Add(ref _bytes, cost - old.Cost);
                    return;
                }
            }
            else if (_map.TryAdd(key, entry))
            {
                Interlocked.Add(ref _bytes, cost);
                return;
            }
        }
    }

    /// <summary>Fill after a disk read; never replaces a newer value a Put already cached.</summary>
    public CacheEntry? TryAdd(byte[] key, byte[] value)
    {
        long cost = Cost(key.Length, value.Length);
        if (cost > _capacity)
        {
            return null;
        }

        var entry = new CacheEntry(value, cost);
        if (!_map.TryAdd(key, entry))
        {
            return null;
        }

        Interlocked.Add(ref _bytes, cost);
        return entry;
    }

    public void Remove(ReadOnlySpan<byte> key)
    {
        if (_lookup.TryRemove(key, out _, out CacheEntry? old))
        {
            Interlocked.Add(ref _bytes, -old.Cost);
        }
    }

    /// <summary>Removes exactly this entry (not a newer one for the same key).</summary>
    public void Remove(byte[] key, CacheEntry entry)
    {
        if (_map.TryRemove(new KeyValuePair<byte[], CacheEntry>(key, entry)))
        {
            Interlocked.Add(ref _bytes, -entry.Cost);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void EvictIfOver()
    {
        if (Volatile.Read(ref _bytes) > _capacity)
        {
            Evict();
        }
    }

    private void Evict()
    {
        lock (_evictLock)
        {
            if (Volatile.Read(ref _bytes) <= _capacity)
            {
                return;
            }

            var log = TailDbEventSource.Log;
            bool events = log.CacheEnabled();
            if (events)
            {
                log.CacheEvictionStart(_lowWatermark);
            }

            int evicted = 0;
            long freed = 0;
            int wraps = 0;
            while (Volatile.Read(ref _bytes) > _lowWatermark)
            {
                if (_hand is null || !_hand.MoveNext())
                {
                    _hand?.Dispose();
                    _hand = _map.GetEnumerator();
                    // After two full sweeps every bit has been cleared once: evict regardless,
                    // or hits racing the hand could keep us looping.
                    if (++wraps > 3 || !_hand.MoveNext())
                    {
                        break;
                    }
                }

                KeyValuePair<byte[], CacheEntry> candidate = _hand.Current;
                if (candidate.Value.Referenced && wraps <= 2)
                {
                    candidate.Value.Referenced = false;
                    continue;
                }

                if (_map.TryRemove(candidate))
                {
                    Interlocked.Add(ref _bytes, -candidate.Value.Cost);
                    evicted++;
                    freed += candidate.Value.Cost;
                }
            }

            if (events)
            {
                log.CacheEvictionStop(evicted, freed);
            }

            _telemetry.Evicted(evicted);
        }
    }

    private static long Cost(int keyLength, int valueLength) => (long)keyLength + valueLength + EntryOverhead;
}
