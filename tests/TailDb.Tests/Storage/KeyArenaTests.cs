using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

public class KeyArenaTests
{
    private static byte[] Key(int i, int length = 16)
    {
        var key = new byte[length];
        BinaryPrimitives.WriteInt32LittleEndian(key, i);
        key[^1] = (byte)(i * 7);
        return key;
    }

    private static void AssertEntries(KeyArena arena, uint[] references, int keyLength)
    {
        for (int i = 0; i < references.Length; i++)
        {
            ref byte entry = ref arena.Entry(references[i]);
            Assert.Equal(i * 3L, Unsafe.ReadUnaligned<long>(ref entry));
            Assert.Equal(i * 5L, Unsafe.ReadUnaligned<long>(ref Unsafe.Add(ref entry, 8)));
            Assert.True(MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref entry, KeyArena.HeaderBytes), keyLength).SequenceEqual(Key(i, keyLength)), $"entry {i}");
        }
    }

    private static uint[] Fill(KeyArena arena, int entries, int keyLength) =>
        [.. Enumerable.Range(0, entries).Select(i => arena.Append(Key(i, keyLength), i * 3L, i * 5L))];

    [Fact]
    public void A_growing_arena_reads_back_every_entry_and_holds_at_most_a_quarter_more_than_it_fills()
    {
        var arena = new KeyArena();
        const int entries = 400_000; // 12.8 MB of 32-byte entries: slabs of 1, 1, 3, 3, 3, 3 chunks...

        uint[] references = Fill(arena, entries, 16);

        AssertEntries(arena, references, 16);
        long used = arena.End;
        Assert.InRange(arena.ReservedBytes, used, (used * 5 / 4) + (3L * KeyArena.ChunkBytes));
    }

    [Fact]
    public void A_reserved_bulk_load_takes_one_slab_and_no_more()
    {
        var arena = new KeyArena();
        const int entries = 300_000;
        long bytes = KeyArena.BytesFor(entries, 16L * entries);

        arena.Reserve(bytes);
        long reserved = arena.ReservedBytes;
        uint[] references = Fill(arena, entries, 16);

        Assert.Equal(32L * entries, bytes);
        Assert.InRange(reserved, bytes, bytes + (2L * KeyArena.ChunkBytes));
        Assert.Equal(reserved, arena.ReservedBytes); // nothing cut past the reservation
        AssertEntries(arena, references, 16);
    }

    [Theory]
    [InlineData(10, 160, 320)] // 16-byte keys: 16 + 16
    [InlineData(10, 130, 320)] // 13-byte keys pad to 16
    [InlineData(4, 68, 160)] // 17-byte keys pad to 24
    public void BytesFor_is_exact_for_keys_of_one_length(int entries, long keyBytes, long expected)
    {
        Assert.Equal(expected, KeyArena.BytesFor(entries, keyBytes));
    }

    [Fact]
    public void BytesFor_keys_of_mixed_lengths_is_an_upper_bound()
    {
        int[] lengths = [1, 8, 9, 16, 17, 100];
        long keyBytes = lengths.Sum();
        long exact = lengths.Sum(KeyArena.EntrySize);

        Assert.InRange(KeyArena.BytesFor(lengths.Length, keyBytes), exact, exact + (7L * lengths.Length));
    }
}
