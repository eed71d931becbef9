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
/// Each cached value is a "slot": the value's bytes plus one trailing byte that is the CLOCK
/// reference bit. Keeping the bit in the array the hit copies anyway, instead of in an entry
/// object around it, saves a dependent load per hit (measured: the entry object alone cost ~18%
/// over a bare dictionary lookup + copy, most of the 1.3x budget).
/// </summary>
internal sealed class ValueCache
{
    /// <summary>
    /// Charged per entry on top of the key and slot bytes: the dictionary node (~48 B) and the
    /// slot array's header (~24 B). The key array is shared with the key directory.
    /// </summary>
    public const int EntryOverhead = 72;

    private readonly ConcurrentDictionary<byte[], byte[]> _map;
    private readonly ConcurrentDictionary<byte[], byte[]>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private readonly long _capacity;
    private readonly long _lowWatermark;
    private readonly TailDbTelemetry _telemetry;
    private readonly Lock _evictLock = new();
    private IEnumerator<KeyValuePair<byte[], byte[]>>? _hand;
    private long _bytes;

    public ValueCache(long capacityBytes, int expectedKeys, TailDbTelemetry telemetry)
    {
        _capacity = capacityBytes;
        // Evict a little below the bound so a full cache does not run the clock on every insert.
        _lowWatermark = capacityBytes - (capacityBytes / 32);
        _telemetry = telemetry;
        _map = new ConcurrentDictionary<byte[], byte[]>(
            Environment.ProcessorCount * 4, capacityBytes == 0 ? 31 : Math.Max(31, expectedKeys), ByteKeyComparer.Instance);
        _lookup = _map.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public bool Enabled => _capacity > 0;

    public long CapacityBytes => _capacity;

    /// <summary>Bytes currently charged. May exceed the capacity by one entry per concurrent writer until they evict.</summary>
    public long SizeBytes => Volatile.Read(ref _bytes);

    /// <summary>A slot for <paramref name="value"/>: its bytes plus the reference byte (clear).</summary>
    public static byte[] CreateSlot(ReadOnlySpan<byte> value)
    {
        byte[] slot = new byte[value.Length + 1];
        value.CopyTo(slot);
        return slot;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ReadOnlySpan<byte> ValueOf(byte[] slot) => new(slot, 0, slot.Length - 1);

    /// <summary>Looks a key up and marks it referenced; the value is <see cref="ValueOf"/>(slot).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGet(ReadOnlySpan<byte> key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out byte[]? slot)
    {
        if (_lookup.TryGetValue(key, out slot))
        {
            // Test first: writing the bit on every hit would bounce the cache line between cores.
            ref byte referenced = ref slot[^1];
            if (referenced == 0)
            {
                referenced = 1;
            }

            return true;
        }

        return false;
    }

    public bool Fits(int keyLength, int valueLength) => Cost(keyLength, valueLength + 1) <= _capacity;

    /// <summary>Write-through from a Put (under the writer's lock, so Puts of one key apply in log order).</summary>
    public void Set(byte[] key, byte[] slot)
    {
        long cost = Cost(key.Length, slot.Length);
        if (cost > _capacity)
        {
            Remove(key);
            return;
        }

        while (true)
        {
            if (_map.TryGetValue(key, out byte[]? old))
            {
                if (_map.TryUpdate(key, slot, old))
                {
                    Interlocked.Add(ref _bytes, cost - Cost(key.Length, old.Length));
                    return;
                }
            }
            else if (_map.TryAdd(key, slot))
            {
                Interlocked.Add(ref _bytes, cost);
                return;
            }
        }
    }

    /// <summary>Fill after a disk read; never replaces a newer value a Put already cached. Returns the slot added, or null.</summary>
    public byte[]? TryAdd(byte[] key, ReadOnlySpan<byte> value)
    {
        long cost = Cost(key.Length, value.Length + 1);
        if (cost > _capacity)
        {
            return null;
        }

        byte[] slot = CreateSlot(value);
        if (!_map.TryAdd(key, slot))
        {
            return null;
        }

        Interlocked.Add(ref _bytes, cost);
        return slot;
    }

    public void Remove(ReadOnlySpan<byte> key)
    {
        if (_lookup.TryRemove(key, out byte[]? storedKey, out byte[]? old))
        {
            Interlocked.Add(ref _bytes, -Cost(storedKey.Length, old.Length));
        }
    }

    /// <summary>Removes exactly this slot (not a newer one for the same key).</summary>
    public void Remove(byte[] key, byte[] slot)
    {
        if (_map.TryRemove(new KeyValuePair<byte[], byte[]>(key, slot)))
        {
            Interlocked.Add(ref _bytes, -Cost(key.Length, slot.Length));
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

                KeyValuePair<byte[], byte[]> candidate = _hand.Current;
                ref byte referenced = ref candidate.Value[^1];
                if (referenced != 0 && wraps <= 2)
                {
                    referenced = 0;
                    continue;
                }

                if (_map.TryRemove(candidate))
                {
                    long cost = Cost(candidate.Key.Length, candidate.Value.Length);
                    Interlocked.Add(ref _bytes, -cost);
                    evicted++;
                    freed += cost;
                }
            }

            if (events)
            {
                log.CacheEvictionStop(evicted, freed);
            }

            _telemetry.Evicted(evicted);
        }
    }

    private static long Cost(int keyLength, int slotLength) => (long)keyLength + slotLength + EntryOverhead;
}
