namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// Pre-generated, seeded keys and values (no generation inside a measured operation), the same
/// for TailDb and its baseline. Keys are fixed-size so every record on disk has one size.
/// </summary>
public sealed class KeySet
{
    public KeySet(int count, int keyBytes, int valueBytes, int seed = 20261122)
    {
        var random = new Random(seed);
        Keys = new byte[count][];
        Values = new byte[count][];
        for (var i = 0; i < count; i++)
        {
            // Unique by construction: the index in the first bytes, seeded noise after it.
            var key = new byte[keyBytes];
            random.NextBytes(key);
            BitConverter.TryWriteBytes(key, i);
            Keys[i] = key;
            var value = new byte[valueBytes];
            random.NextBytes(value);
            Values[i] = value;
        }

        // A seeded permutation, so reads do not walk the file in write order.
        Order = Enumerable.Range(0, count).ToArray();
        random.Shuffle(Order);
    }

    public byte[][] Keys { get; }

    public byte[][] Values { get; }

    /// <summary>The order reads visit the keys in.</summary>
    public int[] Order { get; }

    public int Count => Keys.Length;
}
