using System.Text;
using TailDb.Caching;

namespace TailDb.Tests.Caching;

public sealed class CacheTableTests
{
    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key:{i:D8}");

    private static byte[] Slot(int i) => ValueCache.CreateSlot(BitConverter.GetBytes(i));

    [Fact]
    public void GrowingPastItsBucketsKeepsEveryKeyAndItsSlot()
    {
        var table = new CacheTable(expectedEntries: 16);
        int before = table.BucketCount;
        var slots = new byte[5000][];
        for (int i = 0; i < slots.Length; i++)
        {
            slots[i] = Slot(i);
            Assert.Null(table.Set(Key(i), ValueCache.Hash(Key(i)), slots[i]));
        }

        Assert.True(table.BucketCount > before, $"still {table.BucketCount} buckets after {slots.Length} entries");
        Assert.Equal(slots.Length, table.Count);
        for (int i = 0; i < slots.Length; i++)
        {
            Assert.True(table.TryGet(Key(i), ValueCache.Hash(Key(i)), out byte[]? slot), $"key {i} lost");
            Assert.Same(slots[i], slot);
        }
    }

    [Fact]
    public void SettingAKeyAgainReplacesItsSlotAndReturnsTheOldOne()
    {
        var table = new CacheTable(expectedEntries: 16);
        byte[] first = Slot(1), second = Slot(2);
        Assert.Null(table.Set("k"u8, 7, first));

        Assert.Same(first, table.Set("k"u8, 7, second));
        Assert.True(table.TryGet("k"u8, 7, out byte[]? slot));
        Assert.Same(second, slot);
        Assert.Equal(1, table.Count);
        Assert.False(table.TryAdd("k"u8.ToArray(), 7, first));
    }

    // Every key here hashes alike: one chain, so removals happen at its head, middle and tail.
    [Fact]
    public void RemovingFromOneChainLeavesTheOtherKeysOfItFound()
    {
        var table = new CacheTable(expectedEntries: 16);
        for (int i = 0; i < 5; i++)
        {
            table.Set(Key(i), 42, Slot(i));
        }

        Assert.NotNull(table.Remove(Key(2), 42));
        Assert.NotNull(table.Remove(Key(4), 42)); // the chain's head (last in)
        Assert.NotNull(table.Remove(Key(0), 42)); // its tail

        Assert.Equal(2, table.Count);
        Assert.True(table.TryGet(Key(1), 42, out _));
        Assert.True(table.TryGet(Key(3), 42, out _));
        Assert.False(table.TryGet(Key(2), 42, out _));
        Assert.Null(table.Remove(Key(2), 42));
    }

    [Fact]
    public void ARemovalOfOnlyASlotLeavesANewerSlotOfTheKey()
    {
        var table = new CacheTable(expectedEntries: 16);
        byte[] old = Slot(1), newer = Slot(2);
        table.Set("k"u8, 7, old);
        table.Set("k"u8, 7, newer);

        Assert.Null(table.Remove("k"u8, 7, only: old));
        Assert.True(table.TryGet("k"u8, 7, out byte[]? slot));
        Assert.Same(newer, slot);
        Assert.Same(newer, table.Remove("k"u8, 7, only: newer));
    }

    [Fact]
    public void AReaderStandingOnARemovedNodeStillWalksOnToTheRestOfItsChain()
    {
        var table = new CacheTable(expectedEntries: 16);
        for (int i = 0; i < 3; i++)
        {
            table.Set(Key(i), 5, Slot(i));
        }

        CacheTable.Node standing = table.Head(5 & (table.BucketCount - 1))!;
        var rest = new List<string>();
        for (CacheTable.Node? node = standing.Next; node is not null; node = node.Next)
        {
            rest.Add(Encoding.ASCII.GetString(node.Key));
        }

        Assert.NotNull(table.Remove(standing.Key, 5));

        var seen = new List<string>();
        for (CacheTable.Node? node = standing.Next; node is not null; node = node.Next)
        {
            seen.Add(Encoding.ASCII.GetString(node.Key));
        }

        Assert.Equal(2, rest.Count);
        Assert.Equal(rest, seen);
        Assert.NotSame(standing, table.Head(5 & (table.BucketCount - 1)));
    }

    [Fact]
    public void APrefetchChangesNothing()
    {
        var table = new CacheTable(expectedEntries: 16);
        byte[] slot = Slot(1);
        table.Set("k"u8, 7, slot);
        byte[] before = (byte[])slot.Clone();

        table.Prefetch([7, 8, 7 + table.BucketCount], [new("k"u8.ToArray(), new byte[300]), new("x"u8.ToArray(), new byte[1]), new("y"u8.ToArray(), new byte[1])], maxSlotBytes: 320);

        Assert.Equal(before, slot);
        Assert.Equal(1, table.Count);
        Assert.False(table.TryGet("absent"u8, 8, out _));
    }

    // Readers look up keys that are never removed while writers add and remove others on every
    // stripe, through several resizes: a lookup that ever misses a permanent key, or finds it with
    // another key's slot, is a broken chain or a lost resize.
    [Fact]
    public async Task ReadersNeverMissAKeptKeyWhileWritersAddRemoveAndGrow()
    {
        var table = new CacheTable(expectedEntries: 16);
        const int Kept = 500;
        var kept = new byte[Kept][];
        for (int i = 0; i < Kept; i++)
        {
            kept[i] = Slot(i);
            table.Set(Key(i), ValueCache.Hash(Key(i)), kept[i]);
        }

        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(2));
        int misses = 0, wrong = 0;
        long reads = 0;
        Task[] writers = Enumerable.Range(0, 2).Select(w => Task.Run(() =>
        {
            int next = 0;
            while (!stop.IsCancellationRequested)
            {
                for (int i = 0; i < 2000; i++)
                {
                    byte[] key = Key(1_000_000 * (w + 1) + next + i);
                    table.Set(key, ValueCache.Hash(key), Slot(i));
                }

                for (int i = 0; i < 2000; i++)
                {
                    byte[] key = Key(1_000_000 * (w + 1) + next + i);
                    table.Remove(key, ValueCache.Hash(key));
                }

                next += 2000;
            }
        })).ToArray();
        Task[] readers = Enumerable.Range(0, 2).Select(r => Task.Run(() =>
        {
            var random = new Random(r);
            while (!stop.IsCancellationRequested)
            {
                int i = random.Next(Kept);
                byte[] key = Key(i);
                if (!table.TryGet(key, ValueCache.Hash(key), out byte[]? slot))
                {
                    Interlocked.Increment(ref misses);
                }
                else if (!ReferenceEquals(slot, kept[i]))
                {
                    Interlocked.Increment(ref wrong);
                }

                Interlocked.Increment(ref reads);
            }
        })).ToArray();
        await Task.WhenAll(writers.Concat(readers));

        Assert.True(reads > 0);
        Assert.Equal(0, misses);
        Assert.Equal(0, wrong);
        Assert.Equal(Kept, table.Count);
        Assert.True(table.BucketCount >= 1024, $"the writers never made it grow ({table.BucketCount} buckets)");
    }
}
