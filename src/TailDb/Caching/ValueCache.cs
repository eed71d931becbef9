using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb.Caching;

/// <summary>
/// Values of recently used keys, bounded by bytes, evicted by CLOCK (second chance): a hit only
/// sets a bit, so the hit path is a table lookup plus a copy, with no list to relink and no
/// lock. The table is the cache's own (<see cref="CacheTable"/>: a batch of writes prefetches
/// its keys' entries stage by stage, and hashes each key once). The clock hand is a bucket index
/// into it: buckets are read without locks and tolerate concurrent changes, so no separate ring
/// of entries has to be kept in step with the table.
/// Each cached value is a "slot": a leading state byte (the CLOCK reference bit or
/// <see cref="Pending"/>), a 4-byte version at offset 4, then the value's bytes from offset
/// <see cref="Header"/>. Keeping the state in the array the hit copies anyway, instead of in an
/// entry object around it, saves a dependent load per hit (measured: the entry object alone cost
/// ~18% over a bare dictionary lookup + copy, most of the 1.3x budget). It leads rather than
/// trails so it shares a cache line with the array's length and the value's first bytes: a
/// trailing byte was one more cache miss per hit on a 256-byte value (docs/server.md).
/// <para>
/// The version makes a slot writable in place (<see cref="CacheWrites.Update"/> and <see cref="CacheWrites.Through"/>): a writer makes
/// it odd, overwrites the value, makes it even again; a hit copies through
/// <see cref="TryCopy"/>, which copies again when the version moved under it (a seqlock). So a
/// write of an unchanged length keeps its key cached without allocating, and readers never see a
/// value half old and half new.
/// </para>
/// <para>
/// A fill after a disk read is inserted <see cref="Pending"/>: invisible to hits until the reader
/// has checked that the key still points at the record it read, then published. Inserting it
/// visible and removing it after a failed check (as before) let other readers hit a value a Put
/// had already superseded while the filling reader was descheduled between the two steps (found
/// by the soak test: "k77 reads version 653, the model allows 654..654").
/// </para>
/// <para>
/// A write brackets its key directory change and its cache change with <see cref="OpenWrite"/>
/// and <see cref="CloseWrites"/>. Between the two the key directory already names the new value,
/// so from the open no hit may copy the key's older cached value: a reader that read the new
/// value from the log meanwhile (it missed: the slot was a fill still pending when it looked)
/// would hit the older one next (ConcurrencyTests, about once in 300 runs: "writer 1's version
/// went back from 6260 (Miss) to 6237 (Hit)", frequent once a pause sat in that window). So the
/// open makes the key's slot's version odd, as an in-place write does, and a copy of it reads the
/// log instead (<see cref="TryCopy"/>); and a fill that sees a write open
/// (<see cref="WriteInFlight"/>) is not published. The write's own cache change then replaces,
/// drops or rewrites that slot.
/// </para>
/// <para>
/// With the store's upkeep in the background (<see cref="UpkeepMode.Background"/>, the default)
/// eviction never runs on a request (<see cref="UpkeepMode.OnRequest"/>, the load test's
/// --upkeep on-request, runs the pass on the request that crossed the bound instead, to show what
/// moving it off bought). An insert that takes the cache over its capacity queues one
/// eviction pass on the thread pool (at most one queued or running at a time; the cache is the
/// work item, so queuing allocates nothing); the pass frees down to the low watermark. Between
/// passes the cache may grow to a hard ceiling of capacity + capacity/8; an insert that would go
/// past it is not cached (a Put then drops the key's older cached value instead). So a request
/// does O(1) cache upkeep: one interlocked add, two compares and at most one work-item queue.
/// </para>
/// </summary>
internal sealed class ValueCache : IThreadPoolWorkItem
{
    /// <summary>
    /// Charged per entry on top of the key and slot bytes: the table's node (48 B) and the
    /// headers of the key and slot arrays (~24 B each). The cache owns its key arrays (the key
    /// directory keeps keys in its arena, not in arrays it could share).
    /// </summary>
    public const int EntryOverhead = 96;

    /// <summary>Bytes before the value in a slot: the state byte, 3 unused, the 4-byte version (aligned: array data starts 8-byte aligned).</summary>
    public const int Header = 8;

    private const int VersionAt = 4;

    /// <summary>The most of a slot <see cref="Prefetch"/> asks for: a 256-byte value and its header, in five lines.</summary>
    private const int PrefetchBytes = 320;

    /// <summary>
    /// Copies a hit tries before it gives up and reads the log instead: a copy is retried only when a
    /// write overwrote the slot meanwhile, so this bounds a hit's work against a key written nonstop.
    /// </summary>
    private const int CopyAttempts = 4;

    /// <summary>Slot state of a value hit since the clock hand last cleared it (0: not since).</summary>
    private const byte Referenced = 1;

    /// <summary>Slot state of a fill not yet checked against the key directory: a hit treats it as a miss.</summary>
    private const byte Pending = 2;

    private readonly CacheTable _table;
    private readonly long _capacity;
    private readonly long _lowWatermark;
    private readonly long _ceiling;
    private readonly bool _evictOnRequest;
    private int _evictorQueued;
    private volatile bool _closed;
    private readonly TailDbTelemetry _telemetry;
    private int _hand;
    private long _bytes;

    // Odd while a write is between its key directory change and its cache change (OpenWrite to
    // CloseWrites); written only under the store's writer lock.
    private int _writes;

    public ValueCache(long capacityBytes, int expectedKeys, TailDbTelemetry telemetry, UpkeepMode upkeep = UpkeepMode.Background)
    {
        _evictOnRequest = upkeep == UpkeepMode.OnRequest;
        _capacity = capacityBytes;
        // Evict a little below the bound so a full cache does not run the clock on every insert.
        _lowWatermark = capacityBytes - (capacityBytes / 32);
        _ceiling = capacityBytes + (capacityBytes / 8);
        _telemetry = telemetry;
        _table = new CacheTable(capacityBytes == 0 ? 0 : expectedKeys);
    }

    public bool Enabled => _capacity > 0;

    /// <summary>The most the cache holds between eviction passes (plus one entry per concurrent writer).</summary>
    public long CeilingBytes => _ceiling;

    /// <summary>Bytes currently charged. Above the capacity until the queued eviction pass runs; at most <see cref="CeilingBytes"/> (plus one entry per concurrent writer).</summary>
    public long SizeBytes => Volatile.Read(ref _bytes);

    /// <summary>
    /// The cache's hash of a key (its own seed, not the key directory's). A write hashes each key
    /// once and hands the hash to each of its cache steps.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Hash(ReadOnlySpan<byte> key) => ByteKeyComparer.Hash(key);

    /// <summary>
    /// A slot for <paramref name="value"/>: the reference byte (clear), version 0, then the value's
    /// bytes. A fill's slot is <paramref name="pinned"/>, on the pinned object heap: a filled value
    /// is meant to live (until eviction or its key's next write of another length), and the POH is
    /// collected only with gen2, so it is never copied by gen0/gen1 promotions. On the small-object
    /// heap, the fills of a first read pass (100,000 keys x 256 B) were copied gen0 to gen1 to gen2,
    /// and those pauses were the slowest server commands' cause (docs/server.md).
    /// </summary>
    public static byte[] CreateSlot(ReadOnlySpan<byte> value, bool pinned = false)
    {
        byte[] slot = GC.AllocateUninitializedArray<byte>(value.Length + Header, pinned);
        slot.AsSpan(0, Header).Clear();
        value.CopyTo(slot.AsSpan(Header));
        return slot;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ValueLength(byte[] slot) => slot.Length - Header;

    private static byte[] Pinned(ReadOnlySpan<byte> key)
    {
        byte[] copy = GC.AllocateUninitializedArray<byte>(key.Length, pinned: true);
        key.CopyTo(copy);
        return copy;
    }

    /// <summary>
    /// Copies a hit's value (<see cref="ValueLength"/> bytes) into <paramref name="destination"/>.
    /// False when a write overwrote the slot during each of <see cref="CopyAttempts"/> copies: the
    /// caller then reads the key from the log, as on a miss. <paramref name="destination"/> holds
    /// garbage then.
    /// <para>
    /// The first copy is inlined into the hit path and the retries are not: a retry happens only
    /// when a writer overwrote this slot during the copy, and a loop counter kept across the copy's
    /// call was one more spill and reload on every hit. The slot's header is read through the
    /// array's data reference: every slot is made by <see cref="CreateSlot"/>, so it always has its
    /// <see cref="Header"/> bytes, and the bounds checks of slot[4] and of a span at offset 8 were
    /// a compare and branch each on every hit.
    /// </para>
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryCopy(byte[] slot, Span<byte> destination)
    {
        ref byte data = ref MemoryMarshal.GetArrayDataReference(slot);
        ref int version = ref Unsafe.As<byte, int>(ref Unsafe.Add(ref data, VersionAt));
        // Acquire: the copy's loads are not moved above it (a plain load on x64).
        int before = Volatile.Read(ref version);
        MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref data, Header), slot.Length - Header).CopyTo(destination);
        // The copy's loads complete before the version is read again (a plain load-load order
        // on x64, so only the compiler is held; a fence on arm64).
        Volatile.ReadBarrier();
        return ((before & 1) == 0 && Volatile.Read(ref version) == before) || CopyAgain(slot, destination);
    }

    /// <summary>The rest of <see cref="TryCopy"/>'s attempts, after a writer moved the version during the first.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool CopyAgain(byte[] slot, Span<byte> destination)
    {
        ref byte data = ref MemoryMarshal.GetArrayDataReference(slot);
        ref int version = ref Unsafe.As<byte, int>(ref Unsafe.Add(ref data, VersionAt));
        ReadOnlySpan<byte> value = MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref data, Header), slot.Length - Header);
        for (int attempt = 1; attempt < CopyAttempts; attempt++)
        {
            int before = Volatile.Read(ref version);
            value.CopyTo(destination);
            Volatile.ReadBarrier();
            if ((before & 1) == 0 && Volatile.Read(ref version) == before)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The slot's version (writers only; a hit reads it in <see cref="TryCopy"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref int Version(byte[] slot) => ref Unsafe.As<byte, int>(ref slot[VersionAt]);

    /// <summary>Looks a key up and marks it referenced; copy its value with <see cref="TryCopy"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGet(ReadOnlySpan<byte> key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out byte[]? slot)
    {
        if (_table.TryGet(key, Hash(key), out slot))
        {
            // Test first: writing the bit on every hit would bounce the cache line between cores.
            // A slot always has its header (CreateSlot), so byte 0 is read without a bounds check.
            // Acquire: pairs with Publish's release write, so a hit that sees a fill published
            // also sees the value bytes written before it.
            ref byte state = ref MemoryMarshal.GetArrayDataReference(slot);
            byte seen = Volatile.Read(ref state);
            // A key hit again since the hand last passed is already marked: one compare on that path.
            if (seen != Referenced)
            {
                if (seen == Pending)
                {
                    slot = null;
                    return false;
                }

                state = Referenced;
            }

            return true;
        }

        return false;
    }

    public bool Fits(int keyLength, int valueLength) => Cost(keyLength, valueLength + Header) <= _capacity;

    /// <summary>
    /// Write-through from a Put (under the writer's lock, so Puts of one key apply in log order).
    /// Reuses the cache's own key array when the key is cached; copies the key only when it is not.
    /// </summary>
    public void Set(ReadOnlySpan<byte> key, byte[] slot) => Set(key, Hash(key), slot);

    /// <summary><see cref="Set(ReadOnlySpan{byte}, byte[])"/> of a key whose <see cref="Hash"/> the caller has.</summary>
    public void Set(ReadOnlySpan<byte> key, int hash, byte[] slot)
    {
        long cost = Cost(key.Length, slot.Length);
        if (cost > _capacity || Volatile.Read(ref _bytes) + cost > _ceiling)
        {
            // Too big, or the evictor is behind: the key's older value must not stay cached.
            Remove(key, hash);
            return;
        }

        byte[]? old = _table.Set(key, hash, slot);
        Interlocked.Add(ref _bytes, old is null ? cost : cost - Cost(key.Length, old.Length));
    }

    /// <summary>
    /// Fill after a disk read; never replaces a newer value a Put already cached. Returns the slot
    /// added <see cref="Pending"/> (hits do not see it), or null: the caller checks that no write is
    /// in flight (<see cref="WriteInFlight"/>) and that the key still points where it read, then
    /// calls <see cref="Publish"/> or <see cref="Remove(ReadOnlySpan{byte}, byte[])"/>.
    /// The key is copied (the key directory has no array to share): a fill allocates the slot and the key.
    /// </summary>
    public byte[]? TryAddPending(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        long cost = Cost(key.Length, value.Length + Header);
        int hash = Hash(key);
        if (cost > _capacity || Volatile.Read(ref _bytes) + cost > _ceiling || _table.TryGet(key, hash, out _))
        {
            return null;
        }

        byte[] slot = CreateSlot(value, pinned: true);
        slot[0] = Pending;
        if (!_table.TryAdd(Pinned(key), hash, slot))
        {
            return null;
        }

        Interlocked.Add(ref _bytes, cost);
        // The caller's reads of WriteInFlight and the key directory must not come before the insert
        // is visible to a writer (store-load order: the stripe lock's release does not order them).
        Interlocked.MemoryBarrier();
        return slot;
    }

    /// <summary>
    /// Under the writer lock, before the write changes <paramref name="key"/>'s key directory entry:
    /// opens the write (<see cref="WriteInFlight"/>) and marks the key's slot, published or a fill
    /// still pending, as being written (an odd version), so no hit copies it from now on. A fill
    /// inserted later sees the write open: its insert and this open are each followed by a full
    /// fence before the other's read.
    /// </summary>
    public void OpenWrite(ReadOnlySpan<byte> key, int hash)
    {
        if (OpenWrites())
        {
            MarkAfterFence(key, hash);
        }
    }

    /// <summary>
    /// <see cref="OpenWrite"/> for a batch's run: opens once (one fence); the caller then marks
    /// each key's slot with <see cref="MarkAfterFence"/>. False when the cache is disabled.
    /// </summary>
    public bool OpenWrites()
    {
        if (!Enabled)
        {
            return false;
        }

        Volatile.Write(ref _writes, _writes + 1);
        // The open is visible before the slot is looked up (store-load order).
        Interlocked.MemoryBarrier();
        return true;
    }

    /// <summary>
    /// Hashes a batch's keys into <paramref name="hashes"/> (for its cache steps under the writer's
    /// lock) and starts the loads those steps will make, for all its keys at once, stage by stage
    /// (<see cref="CacheTable.Prefetch"/>): the buckets, the nodes, then each cached slot's header
    /// (the mark writes it) and value (the update overwrites it), so the misses of different keys
    /// overlap instead of coming one after another under the lock, where they were the largest
    /// single cost of a SET -P 16 (docs/server.md, "The cached slots prefetched"). Counts no hit
    /// and changes no slot.
    /// </summary>
    public void Prefetch(ReadOnlySpan<BatchPut> puts, Span<int> hashes)
    {
        if (!Enabled)
        {
            return; // no cache step will run
        }

        for (int i = 0; i < puts.Length; i++)
        {
            hashes[i] = Hash(puts[i].Key.Span);
        }

        _table.Prefetch(hashes[..puts.Length], puts, PrefetchBytes);
    }

    /// <summary>Marks <paramref name="key"/>'s slot as being written (after <see cref="OpenWrites"/>); the write's cache change ends the mark.</summary>
    public void MarkAfterFence(ReadOnlySpan<byte> key, int hash)
    {
        if (_table.TryGet(key, hash, out byte[]? slot))
        {
            ref int version = ref Version(slot);
            Volatile.Write(ref version, version | 1);
        }
    }

    /// <summary>Closes the write opened by <see cref="OpenWrite"/> or <see cref="OpenWrites"/>, after its cache change.</summary>
    public void CloseWrites()
    {
        if (Enabled)
        {
            Volatile.Write(ref _writes, _writes + 1);
        }
    }

    /// <summary>
    /// Whether a write is between its key directory change and its cache change: a fill reads it
    /// after its insert's fence and is not published while it is (see the class comment).
    /// </summary>
    public bool WriteInFlight => (Volatile.Read(ref _writes) & 1) != 0;

    /// <summary>Makes a checked fill visible to hits (a no-op in effect if a Put replaced or removed it meanwhile).</summary>
    public static void Publish(byte[] slot) => Volatile.Write(ref slot[0], 0);

    /// <summary>
    /// The write of <see cref="CacheWrites.Update"/> and <see cref="CacheWrites.Through"/>, under
    /// the writer's lock after it changed the key directory: overwrites the key's cached value in
    /// place when it has <paramref name="value"/>'s length (true), else drops it (false; Through
    /// then caches a new slot with <see cref="Set"/>). Allocates nothing. A pending fill is
    /// dropped, not overwritten: its reader has not checked it yet, and publishing it after this
    /// write would be the fill's decision, not the writer's.
    /// <para>
    /// The caller issues a full fence after its key directory change and before this (as
    /// <see cref="Remove(ReadOnlySpan{byte})"/> does itself), so a fill is either seen pending here
    /// or sees the new location in its own check; a batch's run issues one fence for all its keys.
    /// </para>
    /// </summary>
    public bool UpdateAfterFence(ReadOnlySpan<byte> key, int hash, ReadOnlySpan<byte> value)
    {
        if (!_table.TryGet(key, hash, out byte[]? slot))
        {
            return false;
        }

        if (slot.Length - Header != value.Length || Volatile.Read(ref slot[0]) == Pending)
        {
            RemoveAfterFence(key, hash);
            return false;
        }

        // Writers hold the writer lock, so only one moves a version at a time. Odd first (already,
        // if OpenWrite marked it), and visible before any byte of the value changes; even again
        // only after the last byte.
        ref int version = ref Version(slot);
        int odd = version | 1;
        Volatile.Write(ref version, odd);
        Volatile.WriteBarrier();
        value.CopyTo(slot.AsSpan(Header));
        Volatile.Write(ref version, odd + 1);
        return true;
    }

    /// <summary>A writer's removal, after it changed the key directory.</summary>
    public void Remove(ReadOnlySpan<byte> key, int hash)
    {
        // Pairs with the barrier in TryAddPending: either this remove sees a pending fill, or the
        // filling reader's check sees the key directory change (store-load order, which the
        // stripe's lock is not promised to give on every platform).
        Interlocked.MemoryBarrier();
        RemoveAfterFence(key, hash);
    }

    /// <summary><see cref="Remove(ReadOnlySpan{byte}, int)"/> for a writer that issued the full fence itself after its key directory changes.</summary>
    public void RemoveAfterFence(ReadOnlySpan<byte> key, int hash)
    {
        if (_table.Remove(key, hash) is byte[] old)
        {
            Interlocked.Add(ref _bytes, -Cost(key.Length, old.Length));
        }
    }

    /// <summary>Removes exactly this slot (not a newer one for the same key).</summary>
    public void Remove(ReadOnlySpan<byte> key, byte[] slot)
    {
        if (_table.Remove(key, Hash(key), only: slot) is not null)
        {
            Interlocked.Add(ref _bytes, -Cost(key.Length, slot.Length));
        }
    }

    /// <summary>After an insert: queues the eviction pass if the cache is over capacity and none is queued. Never evicts itself.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WakeEvictorIfOver()
    {
        if (Volatile.Read(ref _bytes) > _capacity && Volatile.Read(ref _evictorQueued) == 0)
        {
            QueueEvictor();
        }
    }

    /// <summary>Stops queuing passes and waits for a queued or running one to finish (store Dispose, not a request).</summary>
    public void Close()
    {
        _closed = true;
        var spin = default(SpinWait);
        while (Volatile.Read(ref _evictorQueued) != 0)
        {
            spin.SpinOnce(sleep1Threshold: 20);
        }
    }

    private void QueueEvictor()
    {
        if (!_closed && Interlocked.CompareExchange(ref _evictorQueued, 1, 0) == 0)
        {
            if (_evictOnRequest)
            {
                // UpkeepMode.OnRequest (the before side of the load test's comparison): this request pays.
                ((IThreadPoolWorkItem)this).Execute();
                return;
            }

            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        }
    }

    void IThreadPoolWorkItem.Execute()
    {
        try
        {
            Evict();
        }
        finally
        {
            Volatile.Write(ref _evictorQueued, 0);
        }

        // Inserts that raced the end of the pass saw it still queued and did not queue another.
        // (On request, the next insert over the bound runs the next pass.)
        if (!_evictOnRequest && Volatile.Read(ref _bytes) > _capacity)
        {
            QueueEvictor();
        }
    }

    /// <summary>One pass of the clock hand down to the low watermark; only ever one at a time (see <see cref="QueueEvictor"/>).</summary>
    private void Evict()
    {
        if (Volatile.Read(ref _bytes) <= _capacity)
        {
            return;
        }

        var log = TailDbEventSource.Log;
        Guid eviction = log.CacheEnabled() ? log.BeginCacheEviction(_lowWatermark) : Guid.Empty;

        int evicted = 0;
        long freed = 0;
        int wraps = 0;
        int emptyBuckets = 0; // walked since the hand last met an entry
        while (Volatile.Read(ref _bytes) > _lowWatermark)
        {
            if (_hand >= _table.BucketCount)
            {
                // After two full sweeps every bit has been cleared once: evict regardless, or hits
                // racing the hand could keep us looping.
                _hand = 0;
                if (++wraps > 3)
                {
                    break;
                }
            }

            CacheTable.Node? node = _table.Head(_hand++);
            emptyBuckets = node is null ? emptyBuckets + 1 : 0;
            if (emptyBuckets > _table.BucketCount)
            {
                break; // a whole sweep met no entry
            }

            for (; node is not null; node = Volatile.Read(ref node.Next))
            {
                byte[] slot = Volatile.Read(ref node.Slot);
                ref byte state = ref slot[0];
                byte seen = Volatile.Read(ref state);
                if (seen != 0 && wraps <= 2)
                {
                    // A pending fill is left as it is: clearing its byte would publish it unchecked.
                    if (seen != Pending)
                    {
                        state = 0;
                    }

                    continue;
                }

                // Only this slot: a write that replaced it meanwhile keeps its newer one.
                if (_table.Remove(node.Key, node.Hash, only: slot) is not null)
                {
                    long cost = Cost(node.Key.Length, slot.Length);
                    Interlocked.Add(ref _bytes, -cost);
                    evicted++;
                    freed += cost;
                }
            }
        }

        if (eviction != Guid.Empty)
        {
            log.EndCacheEviction(eviction, evicted, freed);
        }

        _telemetry.Evicted(evicted);
    }

    private static long Cost(int keyLength, int slotLength) => (long)keyLength + slotLength + EntryOverhead;
}
