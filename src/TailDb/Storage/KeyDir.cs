using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;

namespace TailDb.Storage;

/// <summary>
/// The in-memory index: every live key → the location of its latest record. Mutated only under
/// the writer's lock (and by recovery before the store is shared): one writer. Read lock-free, with
/// no retry, by any number of readers.
/// <para>
/// Layout: an open-addressing table (linear probing, power-of-two size) of one <c>long</c> per
/// slot, <c>hash32 &lt;&lt; 32 | entry reference</c>, over a <see cref="KeyArena"/> holding each
/// key once with its location. No object per key: 1M 16-byte keys are one 16 MB array plus ~32 MB
/// of chunks (docs/store.md has the measured bytes per key).
/// </para>
/// <para>
/// Why readers never see a torn location: a slot is one 64-bit word, written with one volatile
/// write after the entry it names is complete. An entry's lengths word never changes once
/// published; its position word (segment, offset) is rewritten in place with one atomic write, and
/// only when the value length stays the same (compaction's moves, same-size overwrites). Any
/// other change appends a new entry and swaps the slot. So whatever a reader reads is a location
/// the key really had at some point during its lookup.
/// </para>
/// <para>
/// Deletes leave tombstones rather than shifting entries back: a backward shift moves a live key
/// to an earlier slot, and a reader probing past that slot at the same moment would miss a key
/// that never stopped existing. An insert reuses the first tombstone on its probe path; the rest
/// disappear when the table is rebuilt.
/// </para>
/// <para>
/// Rebuilds (O(live keys), on the writer): when slots in use (live + tombstones) pass 3/4 of the
/// table, into a table the live keys fill at most 5/8 of (so growth is amortized O(1) per insert,
/// and pre-sizing from <see cref="TailDbOptions.ExpectedKeyCount"/> avoids it); and when the
/// arena's dead entries (deleted keys, superseded entries) outweigh its live ones and a 4 MiB
/// floor, into a fresh arena holding only live entries, so memory stays within twice the live
/// entries plus the floor under any churn. The new table is built privately and published with one
/// volatile write; a reader still on the old one reads its frozen, consistent state.
/// </para>
/// </summary>
internal sealed class KeyDir
{
    /// <summary>Largest segment number a location can hold (24 bits; numbers are per process).</summary>
    public const int MaxSegmentNumber = (1 << 24) - 1;

    /// <summary>Largest record offset a location can hold (40 bits: 1 TiB per segment file).</summary>
    public const long MaxOffset = (1L << 40) - 1;

    private const long Empty = 0;
    private const long Deleted = 1;
    private const long HashMask = unchecked((long)0xFFFF_FFFF_0000_0000);
    private const int MinCapacity = 16;
    private const int MaxCapacity = 1 << 30;
    private const long ReclaimFloorBytes = 4L * KeyArena.ChunkBytes;

    private readonly int _initialCapacity;
    private Table _table;

    // Set once, before the first key (a hint file's seed adopted at open); see Seed.
    private ulong _seed;

    // Writer-only bookkeeping (read by readers only through Count).
    private int _live;
    private int _tombstones;
    private long _liveBytes;
    private long _deadBytes;
    private int _rebuilds;
    private int _reclaims;

    public KeyDir(int expectedKeys)
        : this(expectedKeys, KeyHasher.NewSeed())
    {
    }

    public KeyDir(int expectedKeys, ulong seed)
    {
        _initialCapacity = CapacityFor(expectedKeys);
        _table = new Table(NewSlots(_initialCapacity), new KeyArena());
        _seed = seed;
    }

    /// <summary>
    /// The seed of this directory's key hash (<see cref="KeyHasher"/>): random per directory unless
    /// adopted from a hint file, whose entries then carry hashes the load reuses instead of
    /// hashing every key again. A slot keeps its key's hash, so the seed can never change once a
    /// key is in.
    /// </summary>
    public ulong Seed => _seed;

    /// <summary>Takes <paramref name="seed"/> as the hash seed; only while the directory holds no key (recovery, before the first load).</summary>
    public void AdoptSeed(ulong seed)
    {
        if (!IsEmpty)
        {
            throw new InvalidOperationException("A key directory's hash seed can change only while it is empty.");
        }

        _seed = seed;
    }

    /// <summary>The hash every lookup of <paramref name="key"/> uses: what a writer may compute before it takes the lock.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Hash(ReadOnlySpan<byte> key) => KeyHasher.Hash(key, _seed);

    /// <summary>Number of live keys (one read).</summary>
    public int Count => Volatile.Read(ref _live);

    /// <summary>Slots in the current table (for tests and the memory figure).</summary>
    internal int Capacity => Volatile.Read(ref _table).Slots.Length;

    /// <summary>How many times the table was rebuilt (growth or reclaim); for tests.</summary>
    internal int Rebuilds => _rebuilds;

    /// <summary>How many of those rebuilds also copied the live entries into a fresh arena; for tests.</summary>
    internal int Reclaims => _reclaims;

    /// <summary>Bytes the directory holds: the slot array plus every arena chunk.</summary>
    internal long ReservedBytes
    {
        get
        {
            Table t = Volatile.Read(ref _table);
            return ((long)t.Slots.Length * sizeof(long)) + t.Arena.ReservedBytes;
        }
    }

    public bool TryGet(ReadOnlySpan<byte> key, out RecordLocation location) => TryGet(key, Hash(key), out location);

    /// <summary><see cref="TryGet(ReadOnlySpan{byte}, out RecordLocation)"/> with the key's <see cref="Hash"/> already computed.</summary>
    public bool TryGet(ReadOnlySpan<byte> key, int hash, out RecordLocation location)
    {
        Table table = Volatile.Read(ref _table);
        long[] slots = table.Slots;
        int mask = slots.Length - 1;
        long tag = (long)hash << 32;
        int i = Home(hash, slots.Length);
        for (int probes = 0; probes < slots.Length; probes++)
        {
            long meta = Volatile.Read(ref slots[i]);
            if (meta == Empty)
            {
                break;
            }

            if ((meta & HashMask) == tag && (uint)meta >= KeyArena.FirstReference)
            {
                ref byte entry = ref table.Arena.Entry((uint)meta);
                if (KeyEquals(ref entry, key))
                {
                    location = Read(ref entry);
                    return true;
                }
            }

            i = (i + 1) & mask;
        }

        location = default;
        return false;
    }

    /// <summary>
    /// Starts the memory loads a batch's <see cref="Set(ReadOnlySpan{byte}, int, RecordLocation, out RecordLocation)"/>s
    /// will make, for all its keys at once, so their cache misses overlap instead of coming one
    /// after another under the writer's lock: every key's home slot first, then the arena entry a
    /// matching slot names. Hints only: a Set relies on nothing read here, a table replaced
    /// meanwhile wastes a prefetch, and without SSE this does nothing. Read as a reader reads.
    /// </summary>
    public unsafe void Prefetch(ReadOnlySpan<int> hashes)
    {
        if (!Sse.IsSupported)
        {
            return;
        }

        Table table = Volatile.Read(ref _table);
        long[] slots = table.Slots;
        fixed (long* first = slots)
        {
            foreach (int hash in hashes)
            {
                Sse.Prefetch0(first + Home(hash, slots.Length));
            }

            foreach (int hash in hashes)
            {
                long meta = Volatile.Read(ref slots[Home(hash, slots.Length)]);
                if ((meta & HashMask) == (long)hash << 32 && (uint)meta >= KeyArena.FirstReference)
                {
                    fixed (byte* entry = &table.Arena.Entry((uint)meta))
                    {
                        Sse.Prefetch0(entry);
                    }
                }
            }
        }
    }

    /// <summary>Points <paramref name="key"/> at <paramref name="location"/>; returns the location it replaced (default if none).</summary>
    public void Set(ReadOnlySpan<byte> key, RecordLocation location, out RecordLocation previous) => Set(key, Hash(key), location, out previous);

    /// <summary><see cref="Set(ReadOnlySpan{byte}, RecordLocation, out RecordLocation)"/> with the key's <see cref="Hash"/> computed before the writer's lock.</summary>
    public void Set(ReadOnlySpan<byte> key, int hash, RecordLocation location, out RecordLocation previous)
    {
        long position = Position(location);
        long lengths = Lengths(location);
        Table table = _table;
        int slot = Find(table, key, hash, out int free);
        if (slot >= 0)
        {
            previous = Update(table, slot, key, position, lengths);
            return;
        }

        previous = default;
        Insert(key, hash, position, lengths, free);
    }

    /// <summary>Recovery's insert (hint files and scans): the same as <see cref="Set"/>; see <see cref="Reserve"/> for bulk loads.</summary>
    public void Load(ReadOnlySpan<byte> key, RecordLocation location, out RecordLocation previous) => Set(key, location, out previous);

    /// <summary>Grows the table once, before a bulk load of up to <paramref name="additionalKeys"/> keys, instead of doubling during it.</summary>
    public void Reserve(int additionalKeys)
    {
        long needed = (long)_live + additionalKeys;
        if ((needed + _tombstones) * 4 > (long)_table.Slots.Length * 3)
        {
            Rebuild(CapacityAfterRebuild(needed), freshArena: false);
        }
    }

    /// <summary>Whether no key was ever inserted or every slot is free again (what <see cref="BeginBulkLoad"/> needs).</summary>
    public bool IsEmpty => _live == 0 && _tombstones == 0;

    /// <summary>
    /// Starts a bulk load of keys that are distinct from each other, into an empty directory
    /// nobody reads yet (recovery loading a hint file first); <paramref name="expectedCount"/> only
    /// sizes the first buffer. Keys go to the arena in order and their slot words to a list;
    /// <see cref="BulkLoad.Complete"/> sizes the table for the real count, deals the list into
    /// groups by the top bits of the hash (the home slot's) and fills the table group by group,
    /// so a million inserts cost two sequential passes instead of a million random cache misses
    /// in the table. Nothing is visible before Complete, which is what lets a hint file be
    /// verified and loaded in one pass.
    /// </summary>
    public BulkLoad BeginBulkLoad(int expectedCount) => BeginBulkLoad(expectedCount, inHashOrder: false);

    /// <summary>
    /// <see cref="BeginBulkLoad(int)"/>; with <paramref name="inHashOrder"/> the caller promises
    /// at most <paramref name="expectedCount"/> keys (the exact count a hint file's header
    /// gives) and expects them in ascending order of their hash (unsigned). The table is then sized
    /// once, here, and each key is placed as it is added: homes ascend, so the slots are written
    /// front to back and no list is kept or dealt. The order only makes it fast; linear probing
    /// finds a key whatever order it went in. A key past the count is refused
    /// (<see cref="BulkLoad.Overflowed"/>): the caller abandons the load.
    /// </summary>
    /// <param name="expectedBytes">The arena bytes the keys take (<see cref="KeyArena.BytesFor"/>), when known: their chunks are then one slab.</param>
    public BulkLoad BeginBulkLoad(int expectedCount, bool inHashOrder, long expectedBytes = 0)
    {
        if (!IsEmpty)
        {
            throw new InvalidOperationException("A bulk load needs an empty key directory.");
        }

        if (inHashOrder)
        {
            Reserve(expectedCount);
        }

        _table.Arena.Reserve(expectedBytes);

        return new BulkLoad(this, expectedCount, inHashOrder);
    }

    public bool Remove(ReadOnlySpan<byte> key, out RecordLocation previous)
    {
        Table table = _table;
        int slot = Find(table, key, Hash(key), out _);
        if (slot < 0)
        {
            previous = default;
            return false;
        }

        ref byte entry = ref table.Arena.Entry((uint)table.Slots[slot]);
        previous = Read(ref entry);
        Volatile.Write(ref table.Slots[slot], Deleted);
        int size = KeyArena.EntrySize(key.Length);
        _liveBytes -= size;
        _deadBytes += size;
        _tombstones++;
        Volatile.Write(ref _live, _live - 1);
        ReclaimIfMostlyDead();
        return true;
    }

    /// <summary>Moves a key only if it still points where compaction found it (an in-place rewrite: no arena growth).</summary>
    public bool TryMove(ReadOnlySpan<byte> key, RecordLocation from, RecordLocation to)
    {
        Table table = _table;
        int slot = Find(table, key, Hash(key), out _);
        if (slot < 0 || Read(ref table.Arena.Entry((uint)table.Slots[slot])) != from)
        {
            return false;
        }

        Update(table, slot, key, Position(to), Lengths(to));
        return true;
    }

    /// <summary>Writer only: the slot holding <paramref name="key"/>, or -1 and in <paramref name="free"/> the first slot an insert may take.</summary>
    private static int Find(Table table, ReadOnlySpan<byte> key, int hash, out int free)
    {
        long[] slots = table.Slots;
        int mask = slots.Length - 1;
        long tag = (long)hash << 32;
        free = -1;
        int i = Home(hash, slots.Length);
        for (int probes = 0; probes < slots.Length; probes++)
        {
            long meta = slots[i];
            if (meta == Empty)
            {
                if (free < 0)
                {
                    free = i;
                }

                return -1;
            }

            if (meta == Deleted)
            {
                if (free < 0)
                {
                    free = i;
                }
            }
            else if ((meta & HashMask) == tag && KeyEquals(ref table.Arena.Entry((uint)meta), key))
            {
                return i;
            }

            i = (i + 1) & mask;
        }

        return -1;
    }

    private RecordLocation Update(Table table, int slot, ReadOnlySpan<byte> key, long position, long lengths)
    {
        long meta = table.Slots[slot];
        ref byte entry = ref table.Arena.Entry((uint)meta);
        RecordLocation previous = Read(ref entry);
        if (Unsafe.ReadUnaligned<long>(ref Unsafe.Add(ref entry, 8)) == lengths)
        {
            Volatile.Write(ref Unsafe.As<byte, long>(ref entry), position);
            return previous;
        }

        uint reference = table.Arena.Append(key, position, lengths);
        Volatile.Write(ref table.Slots[slot], (meta & HashMask) | reference);
        _deadBytes += KeyArena.EntrySize(key.Length);
        ReclaimIfMostlyDead();
        return previous;
    }

    private void Insert(ReadOnlySpan<byte> key, int hash, long position, long lengths, int free)
    {
        Table table = _table;
        if (free < 0 || (table.Slots[free] == Empty && (long)(_live + _tombstones + 1) * 4 > (long)table.Slots.Length * 3))
        {
            Rebuild(CapacityAfterRebuild(_live + 1L), freshArena: false);
            table = _table;
            Find(table, key, hash, out free);
        }

        if (table.Slots[free] == Deleted)
        {
            _tombstones--;
        }

        uint reference = table.Arena.Append(key, position, lengths);
        Volatile.Write(ref table.Slots[free], ((long)hash << 32) | reference);
        _liveBytes += KeyArena.EntrySize(key.Length);
        Volatile.Write(ref _live, _live + 1);
    }

    private void ReclaimIfMostlyDead()
    {
        if (_deadBytes > Math.Max(_liveBytes, ReclaimFloorBytes))
        {
            Rebuild(CapacityAfterRebuild(_live), freshArena: true);
        }
    }

    /// <summary>Builds a table without tombstones (and, if asked, an arena without dead entries) and publishes it with one write.</summary>
    private void Rebuild(int capacity, bool freshArena)
    {
        Table old = _table;
        long[] slots = NewSlots(capacity);
        KeyArena arena = freshArena ? new KeyArena() : old.Arena;
        int mask = capacity - 1;
        foreach (long meta in old.Slots)
        {
            if ((uint)meta < KeyArena.FirstReference)
            {
                continue;
            }

            long moved = meta;
            if (freshArena)
            {
                ref byte entry = ref old.Arena.Entry((uint)meta);
                int keyLength = KeyLength(ref entry);
                uint reference = arena.Append(
                    MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref entry, KeyArena.HeaderBytes), keyLength),
                    Unsafe.ReadUnaligned<long>(ref entry),
                    Unsafe.ReadUnaligned<long>(ref Unsafe.Add(ref entry, 8)));
                moved = (meta & HashMask) | reference;
            }

            int i = Home((int)(meta >>> 32), capacity);
            while (slots[i] != Empty)
            {
                i = (i + 1) & mask;
            }

            slots[i] = moved;
        }

        if (freshArena)
        {
            _deadBytes = 0;
            _reclaims++;
        }

        _tombstones = 0;
        _rebuilds++;
        Volatile.Write(ref _table, new Table(slots, arena));
    }

    /// <summary>An empty slot table; from 4 MiB on, one the kernel can back with huge pages (<see cref="HugePages"/>).</summary>
    private static long[] NewSlots(int capacity)
    {
        if ((long)capacity * sizeof(long) < 2 * HugePages.Bytes)
        {
            return new long[capacity];
        }

        long[] slots = HugePages.AllocateUninitialized<long>(capacity);
        Array.Clear(slots);
        return slots;
    }

    /// <summary>The first table: a power of two holding <paramref name="keys"/> at most 3/4 full.</summary>
    private static int CapacityFor(int keys)
    {
        long wanted = Math.Max(MinCapacity, ((long)keys * 4 / 3) + 1);
        return (int)Math.Min(MaxCapacity, (long)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)wanted));
    }

    /// <summary>
    /// A rebuilt table: the first size, doubled until <paramref name="keys"/> fill at most 5/8 of it,
    /// so at least 1/8 of the table (1/5 of the keys already in it) is inserted before the next
    /// growth: amortized O(1) per insert. Starting from the first size lets a table emptied by
    /// deletes shrink back.
    /// </summary>
    private int CapacityAfterRebuild(long keys)
    {
        long capacity = _initialCapacity;
        while (keys * 8 > capacity * 5)
        {
            capacity *= 2;
        }

        if (capacity > MaxCapacity)
        {
            throw new InvalidOperationException($"The TailDb key directory holds at most {MaxCapacity / 8 * 5} keys; {keys} were asked for.");
        }

        return (int)capacity;
    }

    /// <summary>
    /// A key's first slot: the hash's top bits, so slots in table order are keys in hash order
    /// (what lets <see cref="BulkLoad"/> fill the table one cache-sized stretch at a time).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Home(int hash, int capacity) => (int)((uint)hash >> (32 - System.Numerics.BitOperations.Log2((uint)capacity)));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int KeyLength(ref byte entry) => (int)((ulong)Unsafe.ReadUnaligned<long>(ref Unsafe.Add(ref entry, 8)) >> 32) + 1;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool KeyEquals(ref byte entry, ReadOnlySpan<byte> key) =>
        KeyLength(ref entry) == key.Length
        && MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref entry, KeyArena.HeaderBytes), key.Length).SequenceEqual(key);

    /// <summary>Decodes an entry: the lengths word is immutable, the position word is read once, atomically.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static RecordLocation Read(ref byte entry)
    {
        long position = Volatile.Read(ref Unsafe.As<byte, long>(ref entry));
        long lengths = Unsafe.ReadUnaligned<long>(ref Unsafe.Add(ref entry, 8));
        return new RecordLocation((int)(position >>> 40), position & MaxOffset, (int)((ulong)lengths >> 32) + 1, (int)lengths);
    }

    private static long Position(RecordLocation location)
    {
        if ((uint)location.SegmentNumber > MaxSegmentNumber || (ulong)location.Offset > MaxOffset)
        {
            ThrowBeyondLimits(location);
        }

        return ((long)location.SegmentNumber << 40) | location.Offset;
    }

    private static long Lengths(RecordLocation location) => ((long)(location.KeyLength - 1) << 32) | (uint)location.ValueLength;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowBeyondLimits(RecordLocation location) => throw new InvalidOperationException(
        $"A TailDb key directory location holds segment numbers up to {MaxSegmentNumber} and offsets up to {MaxOffset}; " +
        $"segment {location.SegmentNumber}, offset {location.Offset} is beyond that (reopen the store to renumber its segments).");

    /// <summary>A bulk load in progress (see <see cref="BeginBulkLoad"/>); abandoning it leaves the directory as it found it.</summary>
    internal sealed class BulkLoad
    {
        /// <summary>Slot words are grouped by the top bits of their hash: 2,048 groups, each a run of home slots a few KiB of table wide.</summary>
        private const int GroupBits = 11;

        private readonly KeyDir dir;
        private readonly long _arenaStart;
        private readonly int[] _groupSizes = [];
        private readonly long[]? _direct;
        private readonly int _limit;
        private long[] _metas = [];
        private long _bytes;
        private int _count;

        public BulkLoad(KeyDir dir, int expectedCount, bool inHashOrder)
        {
            this.dir = dir;
            _arenaStart = dir._table.Arena.End;
            if (inHashOrder)
            {
                _direct = dir._table.Slots;
                _limit = expectedCount;
            }
            else
            {
                _groupSizes = new int[1 << GroupBits];
                _metas = GC.AllocateUninitializedArray<long>(Math.Max(16, expectedCount));
            }
        }

        public int Count => _count;

        /// <summary>A load in hash order was handed more keys than it was sized for: abandon it.</summary>
        public bool Overflowed { get; private set; }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Add(ReadOnlySpan<byte> key, RecordLocation location) => Add(key, dir.Hash(key), location);

        /// <summary>Adds a key whose <see cref="Hash"/> is known (a hint file written under this directory's seed carries it).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Add(ReadOnlySpan<byte> key, int hash, RecordLocation location)
        {
            if (_direct is not null)
            {
                AddInPlace(key, hash, location, _direct);
                return;
            }

            if (_count == _metas.Length)
            {
                Array.Resize(ref _metas, _metas.Length * 2);
            }

            uint reference = dir._table.Arena.Append(key, Position(location), Lengths(location));
            _metas[_count++] = ((long)hash << 32) | reference;
            _groupSizes[(uint)hash >> (32 - GroupBits)]++;
            _bytes += KeyArena.EntrySize(key.Length);
        }

        /// <summary>
        /// Publishes every key added. One pass deals the slot words into their groups (the group
        /// sizes were counted as they were added), then each group is placed with ordinary linear
        /// probing: its home slots all lie in one stretch of the table small enough to stay in the
        /// first-level cache, so placement costs no cache miss per key. Linear probing finds a key
        /// whatever order the keys went in, so the order inside a group does not matter.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private void AddInPlace(ReadOnlySpan<byte> key, int hash, RecordLocation location, long[] slots)
        {
            if (_count == _limit)
            {
                Overflowed = true; // the table was sized for the count it was promised, and no more
                return;
            }

            uint reference = dir._table.Arena.Append(key, Position(location), Lengths(location));
            int mask = slots.Length - 1;
            int i = Home(hash, slots.Length);
            while (slots[i] != Empty)
            {
                i = (i + 1) & mask;
            }

            slots[i] = ((long)hash << 32) | reference;
            _count++;
            _bytes += KeyArena.EntrySize(key.Length);
        }

        public void Complete()
        {
            if (Overflowed)
            {
                throw new InvalidOperationException("A bulk load handed more keys than it was sized for cannot complete; abandon it.");
            }

            if (_direct is not null)
            {
                // Placed as they came; nobody reads the directory before the open returns.
                dir._liveBytes += _bytes;
                Volatile.Write(ref dir._live, dir._live + _count);
                return;
            }

            dir.Reserve(_count); // keeps the arena: only the slot array can be replaced
            long[] slots = dir._table.Slots;
            int mask = slots.Length - 1;
            long[] grouped = GC.AllocateUninitializedArray<long>(_count);
            int[] next = _groupSizes;
            int start = 0;
            for (int g = 0; g < next.Length; g++)
            {
                int size = next[g];
                next[g] = start;
                start += size;
            }

            foreach (long meta in _metas.AsSpan(0, _count))
            {
                grouped[next[(int)((ulong)meta >> (64 - GroupBits))]++] = meta;
            }

            foreach (long meta in grouped)
            {
                int i = Home((int)(meta >>> 32), slots.Length);
                while (slots[i] != Empty)
                {
                    i = (i + 1) & mask;
                }

                slots[i] = meta;
            }

            dir._liveBytes += _bytes;
            Volatile.Write(ref dir._live, dir._live + _count);
        }

        /// <summary>
        /// Gives up (the hint file failed its checks): the arena forgets the entries appended, and
        /// a load in hash order empties the slots it filled (the directory was empty before it).
        /// </summary>
        public void Abandon()
        {
            if (_direct is not null)
            {
                Array.Clear(_direct);
            }

            dir._table.Arena.Rewind(_arenaStart);
        }
    }

    /// <summary>One published generation: slots and the arena their references point into. Never mutated except by the writer while current.</summary>
    private sealed class Table(long[] slots, KeyArena arena)
    {
        public readonly long[] Slots = slots;
        public readonly KeyArena Arena = arena;
    }
}
