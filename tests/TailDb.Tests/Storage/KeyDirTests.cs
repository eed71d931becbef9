using System.Buffers.Binary;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class KeyDirTests
{
    private static byte[] Key(int i, int length = 16)
    {
        var key = new byte[length];
        BinaryPrimitives.WriteInt32LittleEndian(key, i);
        key[^1] = (byte)(i * 7);
        return key;
    }

    private static RecordLocation At(int segment, long offset, int keyLength = 16, int valueLength = 100) =>
        new(segment, offset, keyLength, valueLength);

    [Fact]
    public void SetThenGetReturnsTheLocationAndSetReturnsTheOneItReplaced()
    {
        var dir = new KeyDir(0);
        dir.Set(Key(1), At(1, 8), out RecordLocation first);
        dir.Set(Key(1), At(2, 40, valueLength: 7), out RecordLocation second);

        Assert.Equal(default, first);
        Assert.Equal(At(1, 8), second);
        Assert.True(dir.TryGet(Key(1), out RecordLocation now));
        Assert.Equal(At(2, 40, valueLength: 7), now);
        Assert.False(dir.TryGet(Key(2), out _));
        Assert.Equal(1, dir.Count);
    }

    [Fact]
    public void RemoveLeavesTheKeyAbsentAndReturnsItsLastLocation()
    {
        var dir = new KeyDir(0);
        dir.Set(Key(1), At(1, 8), out _);
        dir.Set(Key(2), At(1, 200), out _);

        Assert.True(dir.Remove(Key(1), out RecordLocation removed));
        Assert.Equal(At(1, 8), removed);
        Assert.False(dir.TryGet(Key(1), out _));
        Assert.False(dir.Remove(Key(1), out _));
        Assert.True(dir.TryGet(Key(2), out RecordLocation other));
        Assert.Equal(At(1, 200), other);
        Assert.Equal(1, dir.Count);
    }

    [Fact]
    public void TryMoveMovesOnlyAKeyThatStillPointsWhereCompactionFoundIt()
    {
        var dir = new KeyDir(0);
        dir.Set(Key(1), At(1, 8), out _);
        dir.Set(Key(2), At(1, 200), out _);
        dir.Set(Key(2), At(3, 8), out _); // overwritten while compaction copied segment 1

        Assert.True(dir.TryMove(Key(1), At(1, 8), At(5, 8)));
        Assert.False(dir.TryMove(Key(2), At(1, 200), At(5, 140)));
        Assert.False(dir.TryMove(Key(3), At(1, 300), At(5, 300)));
        dir.TryGet(Key(1), out RecordLocation moved);
        dir.TryGet(Key(2), out RecordLocation kept);
        Assert.Equal(At(5, 8), moved);
        Assert.Equal(At(3, 8), kept);
    }

    [Fact]
    public void KeysThatShareAPrefixOrDifferInLengthAreDistinct()
    {
        var dir = new KeyDir(0);
        byte[] longKey = Key(9, 40);
        dir.Set(longKey.AsSpan(0, 1), At(1, 8, keyLength: 1), out _);
        dir.Set(longKey, At(1, 100, keyLength: 40), out _);
        dir.Set(longKey.AsSpan(0, 39), At(1, 300, keyLength: 39), out _);

        Assert.True(dir.TryGet(longKey.AsSpan(0, 1), out RecordLocation one));
        Assert.True(dir.TryGet(longKey, out RecordLocation forty));
        Assert.True(dir.TryGet(longKey.AsSpan(0, 39), out RecordLocation thirtyNine));
        Assert.False(dir.TryGet(longKey.AsSpan(0, 2), out _));
        Assert.Equal(8, one.Offset);
        Assert.Equal(100, forty.Offset);
        Assert.Equal(300, thirtyNine.Offset);
    }

    [Fact]
    public void ACorruptMarkAndTheLargestKeyAndValueRoundTrip()
    {
        var dir = new KeyDir(0);
        byte[] largest = new byte[RecordFormat.MaxKeyBytes];
        largest[^1] = 1;
        dir.Set(Key(1), RecordLocation.Corrupt(KeyDir.MaxSegmentNumber, KeyDir.MaxOffset, 16), out _);
        dir.Set(largest, At(2, 8, RecordFormat.MaxKeyBytes, RecordFormat.MaxValueBytesLimit), out _);

        Assert.True(dir.TryGet(Key(1), out RecordLocation corrupt));
        Assert.True(corrupt.IsCorrupt);
        Assert.Equal(RecordLocation.Corrupt(KeyDir.MaxSegmentNumber, KeyDir.MaxOffset, 16), corrupt);
        Assert.True(dir.TryGet(largest, out RecordLocation big));
        Assert.Equal(At(2, 8, RecordFormat.MaxKeyBytes, RecordFormat.MaxValueBytesLimit), big);
    }

    [Fact]
    public void ALocationBeyondTheLimitsIsRefusedWithAMessageNamingThem()
    {
        var dir = new KeyDir(0);

        var segment = Assert.Throws<InvalidOperationException>(() => dir.Set(Key(1), At(KeyDir.MaxSegmentNumber + 1, 8), out _));
        var offset = Assert.Throws<InvalidOperationException>(() => dir.Set(Key(1), At(1, KeyDir.MaxOffset + 1), out _));

        Assert.Contains($"segment numbers up to {KeyDir.MaxSegmentNumber}", segment.Message);
        Assert.Contains($"offsets up to {KeyDir.MaxOffset}", offset.Message);
        Assert.False(dir.TryGet(Key(1), out _));
    }

    [Fact]
    public void ReinsertingDeletedKeysReusesTheirTombstonesInsteadOfGrowingTheTable()
    {
        var dir = new KeyDir(0);
        for (int i = 0; i < 10; i++)
        {
            dir.Set(Key(i), At(1, i), out _);
        }

        int capacity = dir.Capacity;
        for (int round = 0; round < 1000; round++)
        {
            int i = round % 10;
            Assert.True(dir.Remove(Key(i), out _));
            dir.Set(Key(i), At(2, round), out _);
        }

        // Without reuse every delete would leave a slot used up: 1,000 of them in a 16-slot table.
        Assert.Equal(capacity, dir.Capacity);
        Assert.Equal(0, dir.Rebuilds);
        Assert.Equal(10, dir.Count);
    }

    [Fact]
    public void SameLengthOverwritesAndMovesRewriteInPlaceWithoutGrowingTheArena()
    {
        var dir = new KeyDir(1000);
        for (int i = 0; i < 1000; i++)
        {
            dir.Set(Key(i), At(1, i), out _);
        }

        long reserved = dir.ReservedBytes;
        for (int round = 0; round < 200; round++)
        {
            for (int i = 0; i < 1000; i++)
            {
                dir.Set(Key(i), At(2 + round, i), out _);
            }
        }

        Assert.Equal(reserved, dir.ReservedBytes);
        Assert.Equal(0, dir.Rebuilds);
        dir.TryGet(Key(999), out RecordLocation last);
        Assert.Equal(At(201, 999), last);
    }

    [Fact]
    public void TheArenaStaysBoundedUnderDeleteInsertAndResizeChurn()
    {
        var dir = new KeyDir(0);
        const int live = 2000;
        for (int i = 0; i < live; i++)
        {
            dir.Set(Key(i), At(1, i), out _);
        }

        long peak = 0;
        for (int round = 0; round < 400_000; round++)
        {
            // A fresh key in, the oldest out; every other round a value length changes too.
            int fresh = live + round;
            dir.Set(Key(fresh), At(1, fresh), out _);
            Assert.True(dir.Remove(Key(fresh - live), out _));
            if (round % 2 == 0)
            {
                dir.Set(Key(fresh), At(1, fresh, valueLength: round % 1000), out _);
            }

            peak = Math.Max(peak, dir.ReservedBytes);
        }

        // 600,000 dead entries of 32 B (19 MB) went through the arena; reclaiming keeps it near the floor.
        Assert.True(dir.Rebuilds > 0);
        Assert.InRange(peak, 0, 8L << 20);
        Assert.Equal(live, dir.Count);
        for (int i = 400_000; i < 400_000 + live; i++)
        {
            Assert.True(dir.TryGet(Key(i), out RecordLocation location));
            Assert.Equal(i, location.Offset);
        }

        Assert.False(dir.TryGet(Key(400_000 - 1), out _));
    }

    [Fact]
    public void ReserveSizesTheTableOnceForABulkLoad()
    {
        var dir = new KeyDir(0);
        dir.Reserve(100_000);
        int capacity = dir.Capacity;
        for (int i = 0; i < 100_000; i++)
        {
            dir.Load(Key(i), At(1, i), out _);
        }

        Assert.Equal(1, dir.Rebuilds);
        Assert.Equal(capacity, dir.Capacity);
        Assert.Equal(100_000, dir.Count);
    }

    [Fact]
    public void ABulkLoadFindsEveryKeyAndLeavesTheDirectoryWritable()
    {
        var dir = new KeyDir(0);
        const int keys = 50_000;
        KeyDir.BulkLoad bulk = dir.BeginBulkLoad(keys);
        for (int i = 0; i < keys; i++)
        {
            bulk.Add(Key(i), At(1, i));
        }

        bulk.Complete();

        Assert.Equal(keys, dir.Count);
        for (int i = 0; i < keys; i++)
        {
            Assert.True(dir.TryGet(Key(i), out RecordLocation location));
            Assert.Equal(At(1, i), location);
        }

        Assert.False(dir.TryGet(Key(keys), out _));
        dir.Set(Key(7), At(2, 7), out RecordLocation previous);
        dir.Set(Key(keys), At(2, 1), out _);
        Assert.True(dir.Remove(Key(8), out _));
        Assert.Equal(At(1, 7), previous);
        Assert.Equal(keys, dir.Count);
        Assert.True(dir.TryGet(Key(keys), out _));
    }

    [Theory]
    [InlineData(true)] // what a compacted hint hands over
    [InlineData(false)] // the promise broken: slower, still right
    public void ABulkLoadInHashOrderPlacesEveryKeyAsItComesAndLeavesTheDirectoryWritable(bool sorted)
    {
        var dir = new KeyDir(0, seed: 42);
        const int keys = 50_000;
        int[] order = Enumerable.Range(0, keys).ToArray();
        if (sorted)
        {
            Array.Sort(order, (a, b) => ((uint)dir.Hash(Key(a))).CompareTo((uint)dir.Hash(Key(b))));
        }

        KeyDir.BulkLoad bulk = dir.BeginBulkLoad(keys, inHashOrder: true);
        int capacity = dir.Capacity;
        foreach (int i in order)
        {
            bulk.Add(Key(i), dir.Hash(Key(i)), At(1, i));
        }

        bulk.Complete();

        Assert.False(bulk.Overflowed);
        Assert.Equal(capacity, dir.Capacity); // sized once, at the start
        Assert.Equal(keys, dir.Count);
        for (int i = 0; i < keys; i++)
        {
            Assert.True(dir.TryGet(Key(i), out RecordLocation location));
            Assert.Equal(At(1, i), location);
        }

        dir.Set(Key(7), At(2, 7), out RecordLocation previous);
        dir.Set(Key(keys), At(2, 1), out _);
        Assert.True(dir.Remove(Key(8), out _));
        Assert.Equal(At(1, 7), previous);
        Assert.Equal(keys, dir.Count);
        Assert.True(dir.TryGet(Key(keys), out _));
    }

    [Fact]
    public void ABulkLoadInHashOrderHandedMoreKeysThanPromisedOverflowsAndAbandonsToAnEmptyDirectory()
    {
        var dir = new KeyDir(0);
        KeyDir.BulkLoad bulk = dir.BeginBulkLoad(10, inHashOrder: true);
        for (int i = 0; i < 11; i++)
        {
            bulk.Add(Key(i), dir.Hash(Key(i)), At(1, i));
        }

        Assert.True(bulk.Overflowed);
        Assert.Throws<InvalidOperationException>(bulk.Complete);
        bulk.Abandon();

        Assert.True(dir.IsEmpty);
        for (int i = 0; i < 11; i++)
        {
            Assert.False(dir.TryGet(Key(i), out _));
        }

        KeyDir.BulkLoad again = dir.BeginBulkLoad(3, inHashOrder: true);
        again.Add(Key(5), dir.Hash(Key(5)), At(3, 5));
        again.Complete();
        Assert.Equal(1, dir.Count);
        Assert.True(dir.TryGet(Key(5), out RecordLocation location));
        Assert.Equal(At(3, 5), location);
    }

    [Fact]
    public void AnAbandonedBulkLoadLeavesTheDirectoryEmptyAndABulkLoadNeedsAnEmptyOne()
    {
        var dir = new KeyDir(0);
        KeyDir.BulkLoad bulk = dir.BeginBulkLoad(10);
        for (int i = 0; i < 10; i++)
        {
            bulk.Add(Key(i), At(1, i));
        }

        bulk.Abandon();

        Assert.True(dir.IsEmpty);
        Assert.False(dir.TryGet(Key(3), out _));
        dir.Set(Key(3), At(1, 3), out _);
        Assert.Throws<InvalidOperationException>(() => dir.BeginBulkLoad(1));
    }

    [Fact]
    public void AnAbandonedBulkLoadGivesItsArenaBytesBackForTheNextLoad()
    {
        var abandoned = new KeyDir(0);
        KeyDir.BulkLoad bulk = abandoned.BeginBulkLoad(0);
        for (int i = 0; i < 60_000; i++)
        {
            bulk.Add(Key(i), At(1, i)); // ~2 MB of entries: the arena takes chunks
        }

        bulk.Abandon();
        for (int i = 0; i < 60_000; i++)
        {
            abandoned.Set(Key(i), At(2, i), out _);
        }

        var fresh = new KeyDir(0);
        for (int i = 0; i < 60_000; i++)
        {
            fresh.Set(Key(i), At(2, i), out _);
        }

        Assert.Equal(fresh.ReservedBytes, abandoned.ReservedBytes);
        Assert.True(abandoned.TryGet(Key(59_999), out RecordLocation location));
        Assert.Equal(At(2, 59_999), location);
    }

    [Fact]
    public void ABulkLoadTakesMoreKeysThanItExpectedAndSizesTheTableForThem()
    {
        var dir = new KeyDir(0);
        KeyDir.BulkLoad bulk = dir.BeginBulkLoad(1);
        for (int i = 0; i < 10_000; i++)
        {
            bulk.Add(Key(i), At(1, i));
        }

        bulk.Complete();

        Assert.Equal(10_000, dir.Count);
        Assert.True(dir.Capacity * 3 >= 10_000 * 4, $"capacity {dir.Capacity}");
        Assert.True(dir.TryGet(Key(9_999), out _));
    }

    /// <summary>
    /// The writer grows the table from 16 slots (14 doublings), rewrites locations in place and by
    /// appending, and churns other keys until the arena is reclaimed, while readers look up every
    /// key already published. A reader must always find it, and find a location the writer really
    /// stored: the version encoded in the offset must agree with the value length (a torn entry
    /// would pair one version's offset with another's length) and never go backwards.
    /// </summary>
    [Fact]
    public async Task ReadersDuringResizesRewritesAndReclaimsNeverSeeAWrongOrMissingLocation()
    {
        const int stable = 100_000;
        const int versions = 16;
        var dir = new KeyDir(0);
        int published = 0;
        bool done = false;
        long checks = 0;
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();

        static RecordLocation Version(int i, int v) => new(1 + (i % 1000), ((long)i * 64) + v, 16, v / 2);

        void Reader(int seed)
        {
            var random = new Random(seed);
            var lastSeen = new int[stable];
            while (!Volatile.Read(ref done) && failures.IsEmpty)
            {
                int count = Volatile.Read(ref published);
                if (count == 0)
                {
                    continue;
                }

                int i = random.Next(count);
                if (!dir.TryGet(Key(i), out RecordLocation l))
                {
                    failures.Enqueue($"key {i} missing");
                    return;
                }

                int v = (int)(l.Offset - ((long)i * 64));
                if (l.SegmentNumber != 1 + (i % 1000) || v < 0 || v >= versions || l.ValueLength != v / 2 || l.KeyLength != 16 || v < lastSeen[i])
                {
                    failures.Enqueue($"key {i}: {l} (last version seen {lastSeen[i]})");
                    return;
                }

                lastSeen[i] = v;
                Interlocked.Increment(ref checks);
            }
        }

        Task[] readers = [Task.Factory.StartNew(() => Reader(1), TaskCreationOptions.LongRunning), Task.Factory.StartNew(() => Reader(2), TaskCreationOptions.LongRunning)];
        for (int i = 0; i < stable; i++)
        {
            dir.Set(Key(i), Version(i, 0), out _);
            Volatile.Write(ref published, i + 1);
        }

        int churn = stable;
        for (int v = 1; v < versions && failures.IsEmpty; v++)
        {
            for (int i = 0; i < stable; i++)
            {
                // Odd versions keep the value length (a rewrite in place), even ones change it (a new entry).
                if (v % 2 == 1)
                {
                    dir.Set(Key(i), Version(i, v), out _);
                }
                else
                {
                    Assert.True(dir.TryMove(Key(i), Version(i, v - 1), Version(i, v)));
                }

                dir.Set(Key(churn, 24), At(7, churn, keyLength: 24), out _);
                dir.Remove(Key(churn - 1000, 24), out _);
                churn++;
            }
        }

        Volatile.Write(ref done, true);
        await Task.WhenAll(readers);

        Assert.Empty(failures);
        Assert.True(dir.Rebuilds > 14, $"the table was rebuilt {dir.Rebuilds} times");
        Assert.True(dir.Reclaims > 0, "the arena was never reclaimed");
        Assert.True(Interlocked.Read(ref checks) > 1000, $"{checks} reads were checked");
    }
}
