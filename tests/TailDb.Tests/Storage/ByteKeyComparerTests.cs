using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class ByteKeyComparerTests
{
    [Fact]
    public void AKeyEqualsOnlyAStoredKeyOfItsLengthWithEveryByteTheSame()
    {
        // Lengths 0..40 cover the inline 8..16-byte compare (both words, overlapping below 16) and
        // the lengths that go to SequenceEqual; one flipped bit at every position must tell them apart.
        var bytes = new byte[40];
        new Random(11).NextBytes(bytes);
        for (int length = 0; length <= bytes.Length; length++)
        {
            byte[] stored = bytes[..length];
            Assert.True(ByteKeyComparer.Same(bytes.AsSpan(0, length), stored), $"length {length}: equal keys compared unequal");
            if (length < bytes.Length)
            {
                Assert.False(ByteKeyComparer.Same(bytes.AsSpan(0, length), bytes[..(length + 1)]), $"length {length}: a longer stored key compared equal");
            }

            for (int i = 0; i < length; i++)
            {
                byte[] flipped = bytes[..length];
                flipped[i] ^= 0x80;
                Assert.False(ByteKeyComparer.Same(bytes.AsSpan(0, length), flipped), $"length {length}: a difference at byte {i} was missed");
            }
        }
    }
}
