using System.Buffers.Binary;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class KeyHasherTests
{
    [Fact]
    public void TheSameKeyAndSeedHashTheSameInEveryProcessAndAnotherSeedHashesDifferently()
    {
        byte[] key = "user:42"u8.ToArray();

        // A hint file's hashes are reused by a later process: the hash may depend on nothing but the key and the seed.
        Assert.Equal(KeyHasher.Hash(key, 1), KeyHasher.Hash(key.AsSpan().ToArray(), 1));
        Assert.NotEqual(KeyHasher.Hash(key, 1), KeyHasher.Hash(key, 2));
    }

    [Fact]
    public void EveryLengthUpToSeveralBlocksIsHashedWholeAndALongerKeyIsNotItsPrefix()
    {
        // Lengths 0..70 cover the short-key branches (0, 1-3, 4-7, 8-16) and the 16-byte blocks with and without a tail.
        var key = new byte[70];
        new Random(7).NextBytes(key);
        var seen = new HashSet<int>();
        for (int length = 0; length <= key.Length; length++)
        {
            Assert.True(seen.Add(KeyHasher.Hash(key.AsSpan(0, length), 99)), $"length {length} hashed like a shorter prefix");
            for (int i = 0; i < length; i++)
            {
                byte[] flipped = key[..length];
                flipped[i] ^= 0x01;
                Assert.NotEqual(KeyHasher.Hash(key.AsSpan(0, length), 99), KeyHasher.Hash(flipped, 99));
            }
        }
    }

    [Fact]
    public void SequentialKeysSpreadOverTheTopBitsTheKeyDirectoryPlacesBy()
    {
        // KeyDir's home slot and its bulk load's groups are the hash's top bits: 100,000 keys that
        // differ only in a counter must fill 2,048 groups about evenly (expected 48.8 each).
        var groups = new int[2048];
        var key = new byte[16];
        for (int i = 0; i < 100_000; i++)
        {
            BinaryPrimitives.WriteInt32LittleEndian(key, i);
            groups[(uint)KeyHasher.Hash(key, 0x1234) >> 21]++;
        }

        Assert.InRange(groups.Min(), 15, 49);
        Assert.InRange(groups.Max(), 49, 90);
    }
}
