using TailDb.Storage;

namespace TailDb.Tests.Storage;

public sealed class RecordFormatTests
{
    [Fact]
    public void Crc32CMatchesTheStandardCheckValue()
    {
        // The CRC-32C catalogue check value for "123456789" (RFC 3720 / iSCSI).
        Assert.Equal(0xE3069283u, Crc32C.Compute("123456789"u8));
        Assert.Equal(Crc32C.Compute("123456789"u8), Crc32C.Append(Crc32C.Compute("12345"u8), "6789"u8));
    }

    [Fact]
    public void Crc32CMatchesABytewiseReferenceAtEveryLengthAndAlignment()
    {
        var data = new byte[80];
        new Random(25).NextBytes(data);
        for (int start = 0; start < 8; start++)
        {
            for (int length = 0; start + length <= data.Length; length++)
            {
                ReadOnlySpan<byte> span = data.AsSpan(start, length);
                Assert.Equal(Reference(span), Crc32C.Compute(span));
            }
        }
    }

    /// <summary>CRC32C bit by bit (reflected polynomial 0x82F63B78): no table, no instruction, nothing shared with the code under test.</summary>
    private static uint Reference(ReadOnlySpan<byte> data)
    {
        uint crc = ~0u;
        foreach (byte b in data)
        {
            crc ^= b;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
            }
        }

        return ~crc;
    }

    [Fact]
    public void EveryFlippedBitIsCaughtByOneOfTheTwoChecksums()
    {
        byte[] record = new byte[RecordFormat.RecordSize(3, 5)];
        RecordFormat.Write(record, "key"u8, "value"u8, tombstone: false);
        Assert.True(RecordFormat.RecordIntact(record));
        Assert.True(RecordFormat.HeaderIntact(record.AsSpan(0, RecordFormat.HeaderSize + 3)));

        for (int bit = 0; bit < record.Length * 8; bit++)
        {
            byte[] damaged = (byte[])record.Clone();
            damaged[bit / 8] ^= (byte)(1 << (bit % 8));
            bool lengthsOk = RecordFormat.TryReadLengths(damaged, 1 << 20, out int keyLength, out _);
            bool headerOk = lengthsOk && keyLength == 3 && RecordFormat.HeaderIntact(damaged.AsSpan(0, RecordFormat.HeaderSize + 3));
            Assert.False(headerOk && RecordFormat.RecordIntact(damaged), $"bit {bit} flipped unnoticed");

            // Damage past the header (the value) leaves the header verifiable: the key is known.
            if (bit / 8 >= RecordFormat.HeaderSize + 3)
            {
                Assert.True(headerOk);
            }
        }
    }

    [Fact]
    public void TombstoneIsMarkedByItsValueLength()
    {
        byte[] record = new byte[RecordFormat.RecordSize(3, 0)];
        RecordFormat.Write(record, "key"u8, default, tombstone: true);
        Assert.True(RecordFormat.TryReadLengths(record, 0, out int keyLength, out int valueLength));
        Assert.Equal(3, keyLength);
        Assert.Equal(-1, valueLength);
        Assert.True(RecordFormat.RecordIntact(record));
    }
}
