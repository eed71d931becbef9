using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;
using TailDb.Storage;

namespace TailDb.Caching;

/// <summary>
/// The value cache's table: key bytes → slot, in chained buckets (a power of two of them), read
/// without locks, written under one lock per stripe of buckets. ConcurrentDictionary's design
/// (its lock-free reads, its striped locks, its resize under all locks), built here because the
/// cache needs two things it keeps inside: the bucket a hash falls in, so a batch of writes can
/// prefetch its keys' buckets, then their nodes, then their slots, each stage for the whole batch
/// at once (<see cref="Prefetch"/>; inside ConcurrentDictionary each key's lookup is a chain of
/// misses, taken one key after another: 37% of `PutBatchAsync`'s samples at -P 1); and a hash
/// computed once per key and handed to every step of a write, where the dictionary hashed the key
/// again at each step.
/// <para>
/// Why a reader never sees a broken chain: a node's key and hash never change; a node is linked
/// in at its bucket's head with one release write after it is complete; a removal relinks its
/// predecessor (or the head) past it and leaves the removed node's own link as it was, so a reader
/// standing on it still walks on to the rest of the chain. A slot is replaced in its node with one
/// release write. A resize builds a new set of buckets from new nodes under every stripe's lock
/// and publishes it with one write; a reader still on the old one reads its frozen state (the
/// slots are the same objects in both, so a slot's own version and state still apply).
/// </para>
/// </summary>
internal sealed class CacheTable
{
    /// <summary>An entry. Key and hash are fixed; <see cref="Slot"/> and <see cref="Next"/> change only under the stripe's lock.</summary>
    internal sealed class Node(byte[] key, int hash, byte[] slot, Node? next)
    {
        public readonly byte[] Key = key;
        public readonly int Hash = hash;
        public byte[] Slot = slot;
        public Node? Next = next;
    }

    /// <summary>One generation of the buckets, with each stripe's entry count (kept under that stripe's lock).</summary>
    private sealed class Buckets(Node?[] heads, int stripes)
    {
        public readonly Node?[] Heads = heads;
        public readonly int[] Counts = new int[stripes];
    }

    private const int MaxBuckets = 1 << 30;

    /// <summary>From an array's address (its method table) to its first element: the table pointer and the length.</summary>
    private const int ArrayDataOffset = 16;

    private readonly Lock[] _locks;
    private volatile Buckets _buckets;

    /// <param name="expectedEntries">Buckets for this many entries before the first resize.</param>
    public CacheTable(int expectedEntries)
    {
        int stripes = (int)Math.Min(1024, System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Environment.ProcessorCount * 4));
        _locks = new Lock[stripes];
        for (int i = 0; i < stripes; i++)
        {
            _locks[i] = new Lock();
        }

        int buckets = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(expectedEntries, stripes, MaxBuckets));
        _buckets = new Buckets(new Node?[buckets], stripes);
    }

    /// <summary>Buckets in the current generation (the clock hand's range).</summary>
    public int BucketCount => _buckets.Heads.Length;

    /// <summary>Entries now (sums the stripes without their locks: a snapshot, for tests and diagnostics).</summary>
    public int Count
    {
        get
        {
            int count = 0;
            foreach (int stripe in _buckets.Counts)
            {
                count += stripe;
            }

            return count;
        }
    }

    /// <summary>The first node of bucket <paramref name="bucket"/> of the current generation (the clock hand walks from it), or null.</summary>
    public Node? Head(int bucket)
    {
        Node?[] heads = _buckets.Heads;
        return (uint)bucket < (uint)heads.Length ? Volatile.Read(ref heads[bucket]) : null;
    }

    /// <summary>The slot of <paramref name="key"/> (hashed to <paramref name="hash"/>), without a lock.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGet(ReadOnlySpan<byte> key, int hash, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out byte[]? slot)
    {
        Node? node = Volatile.Read(ref HeadOf(_buckets.Heads, hash));
        while (node is not null)
        {
            if (node.Hash == hash && ByteKeyComparer.Same(key, node.Key))
            {
                slot = Volatile.Read(ref node.Slot);
                return true;
            }

            node = Volatile.Read(ref node.Next);
        }

        slot = null;
        return false;
    }

    /// <summary>
    /// Sets <paramref name="key"/>'s slot; returns the slot it replaced, or null when the key was
    /// not in the table (its node then holds a copy of the key).
    /// </summary>
    public byte[]? Set(ReadOnlySpan<byte> key, int hash, byte[] slot) => Put(key, hash, slot, keyArray: null, replace: true, out _);

    /// <summary>Adds <paramref name="key"/> (whose array the node keeps) with <paramref name="slot"/>; false, and nothing changed, when the key is already in the table.</summary>
    public bool TryAdd(byte[] key, int hash, byte[] slot)
    {
        Put(key, hash, slot, key, replace: false, out bool added);
        return added;
    }

    /// <summary>
    /// Under the key's stripe lock: replaces the slot of a node holding the key (when
    /// <paramref name="replace"/>; returns the old slot) or links a new node at its bucket's head
    /// (holding <paramref name="keyArray"/>, or a copy of the key), then grows the buckets if its
    /// stripe outgrew its share, after the lock.
    /// </summary>
    private byte[]? Put(ReadOnlySpan<byte> key, int hash, byte[] slot, byte[]? keyArray, bool replace, out bool added)
    {
        while (true)
        {
            Buckets buckets = _buckets;
            int bucket = hash & (buckets.Heads.Length - 1);
            int stripe = bucket & (_locks.Length - 1);
            bool grow;
            lock (_locks[stripe])
            {
                if (buckets != _buckets)
                {
                    continue; // resized while this writer waited: its bucket moved
                }

                ref Node? head = ref buckets.Heads[bucket];
                for (Node? node = head; node is not null; node = node.Next)
                {
                    if (node.Hash == hash && ByteKeyComparer.Same(key, node.Key))
                    {
                        added = false;
                        if (!replace)
                        {
                            return null;
                        }

                        byte[] old = node.Slot;
                        Volatile.Write(ref node.Slot, slot);
                        return old;
                    }
                }

                Volatile.Write(ref head, new Node(keyArray ?? key.ToArray(), hash, slot, head));
                grow = ++buckets.Counts[stripe] > buckets.Heads.Length / _locks.Length;
            }

            if (grow)
            {
                Grow(buckets);
            }

            added = true;
            return null;
        }
    }

    /// <summary>
    /// Removes <paramref name="key"/> when its slot is <paramref name="only"/> (any slot when that
    /// is null); returns the slot removed, or null when nothing was.
    /// </summary>
    public byte[]? Remove(ReadOnlySpan<byte> key, int hash, byte[]? only = null)
    {
        while (true)
        {
            Buckets buckets = _buckets;
            int bucket = hash & (buckets.Heads.Length - 1);
            int stripe = bucket & (_locks.Length - 1);
            lock (_locks[stripe])
            {
                if (buckets != _buckets)
                {
                    continue;
                }

                ref Node? link = ref buckets.Heads[bucket];
                while (link is not null)
                {
                    Node node = link;
                    if (node.Hash == hash && ByteKeyComparer.Same(key, node.Key))
                    {
                        if (only is not null && !ReferenceEquals(node.Slot, only))
                        {
                            return null;
                        }

                        // The removed node keeps its own link: a reader standing on it walks on.
                        Volatile.Write(ref link, node.Next);
                        buckets.Counts[stripe]--;
                        return node.Slot;
                    }

                    link = ref node.Next;
                }

                return null;
            }
        }
    }

    /// <summary>
    /// Starts the loads that writing <paramref name="puts"/> (their keys hashed to
    /// <paramref name="hashes"/>) will make, stage by stage for all of them: their buckets, then
    /// the buckets' first nodes, then each matching node's key and the lines of its slot that the
    /// put's value would overwrite in place, at most <paramref name="maxSlotBytes"/>. Hints only
    /// (a node changed meanwhile wastes a prefetch); without SSE only the loads of the later
    /// stages warm anything.
    /// </summary>
    public unsafe void Prefetch(ReadOnlySpan<int> hashes, ReadOnlySpan<BatchPut> puts, int maxSlotBytes)
    {
        if (!Sse.IsSupported)
        {
            return;
        }

        Node?[] heads = _buckets.Heads;
        foreach (int hash in hashes)
        {
            Sse.Prefetch0(Unsafe.AsPointer(ref HeadOf(heads, hash)));
        }

        foreach (int hash in hashes)
        {
            Node? node = HeadOf(heads, hash);
            if (node is not null)
            {
                Sse.Prefetch0(AddressOf(node));
            }
        }

        for (int i = 0; i < hashes.Length; i++)
        {
            int hash = hashes[i];
            for (Node? node = HeadOf(heads, hash); node is not null; node = node.Next)
            {
                if (node.Hash == hash)
                {
                    Sse.Prefetch0(AddressOf(node.Key));
                    // Sized by the put's value, not by the slot's length: reading that would wait
                    // for the very line this prefetches (41% of this method's samples when it did).
                    // An update in place copies a value of the slot's own length.
                    byte* slot = (byte*)AddressOf(node.Slot);
                    int bytes = Math.Min(ArrayDataOffset + ValueCache.Header + puts[i].Value.Length, maxSlotBytes);
                    for (int at = 0; at < bytes; at += 64)
                    {
                        Sse.Prefetch0(slot + at);
                    }

                    break;
                }
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref Node? HeadOf(Node?[] heads, int hash) =>
        ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(heads), hash & (heads.Length - 1));

    /// <summary>Where an object is now: for a prefetch only (a collection may move it the next moment, which costs nothing but the hint).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe void* AddressOf(object o) => *(void**)Unsafe.AsPointer(ref o);

    /// <summary>
    /// Doubles the buckets once a stripe holds more entries than its share of them, under every
    /// stripe's lock (taken in order, so two growers cannot deadlock); another writer's growth of
    /// the same generation makes this one a no-op. It runs on the insert that crossed the share, as
    /// ConcurrentDictionary's resize does: with the buckets sized from the store's expected key
    /// count, only while the cache grows past it, each doubling once.
    /// </summary>
    private void Grow(Buckets from)
    {
        int taken = 0;
        try
        {
            for (; taken < _locks.Length; taken++)
            {
                _locks[taken].Enter();
            }

            if (from != _buckets || from.Heads.Length >= MaxBuckets)
            {
                return;
            }

            var grown = new Buckets(new Node?[from.Heads.Length * 2], _locks.Length);
            int mask = grown.Heads.Length - 1;
            foreach (Node? head in from.Heads)
            {
                for (Node? node = head; node is not null; node = node.Next)
                {
                    int bucket = node.Hash & mask;
                    // New nodes: the old ones stay as they are for readers still on the old generation.
                    grown.Heads[bucket] = new Node(node.Key, node.Hash, node.Slot, grown.Heads[bucket]);
                    grown.Counts[bucket & (_locks.Length - 1)]++;
                }
            }

            _buckets = grown;
        }
        finally
        {
            for (int i = 0; i < taken; i++)
            {
                _locks[i].Exit();
            }
        }
    }
}
