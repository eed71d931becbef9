using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace TailDb.Storage;

/// <summary>
/// The key directory's entries, appended into 1 MiB chunks, so a million keys are some forty
/// arrays instead of a million. An entry, 8-byte aligned and never spanning two chunks:
/// <code>
///  0  i64 position     segment number (24 bits) &lt;&lt; 40 | offset (40 bits); rewritten in place, atomically
///  8  i64 lengths      (keyLength - 1) &lt;&lt; 32 | (u32)valueLength; never changes once published
/// 16  key bytes, padded to 8
/// </code>
/// An entry is referenced by its byte offset / 8 (a u32: 32 GiB of entries). Only the key
/// directory's single writer appends; readers find entries through references published after the
/// entry was written (<see cref="KeyDir"/>). A chunk is never written again once an arena is
/// replaced, so a reader still holding an old table reads consistent, if stale, entries.
/// </summary>
internal sealed class KeyArena
{
    public const int ChunkBits = 20;
    public const int ChunkBytes = 1 << ChunkBits;
    public const int HeaderBytes = 16;

    /// <summary>References 0 and 1 are never entries: the table uses them for empty and deleted slots.</summary>
    public const uint FirstReference = 2;

    private const long MaxBytes = (long)uint.MaxValue << 3;

    private byte[][] _chunks = new byte[4][];
    private int _chunkCount;
    private long _end = FirstReference * 8;

    /// <summary>Bytes held by the chunks (what the arena costs in memory, used or not).</summary>
    public long ReservedBytes => (long)_chunkCount * ChunkBytes;

    /// <summary>Where the next entry goes (a mark for <see cref="Rewind"/>).</summary>
    public long End => _end;

    /// <summary>
    /// Forgets every entry appended since <paramref name="end"/> (an abandoned bulk load); only
    /// valid while no slot references them. The chunks stay, to be written again.
    /// </summary>
    public void Rewind(long end)
    {
        if (end > _end || end < FirstReference * 8)
        {
            throw new ArgumentOutOfRangeException(nameof(end), end, "Not a mark of this arena.");
        }

        _end = end;
    }

    public static int EntrySize(int keyLength) => (HeaderBytes + keyLength + 7) & ~7;

    /// <summary>Appends an entry; returns its reference. Writer only.</summary>
    public uint Append(ReadOnlySpan<byte> key, long position, long lengths)
    {
        int size = EntrySize(key.Length);
        long offset = _end;
        long chunk = offset >> ChunkBits;
        if ((offset & (ChunkBytes - 1)) + size > ChunkBytes)
        {
            chunk++;
            offset = chunk << ChunkBits;
        }

        if (offset + size > MaxBytes)
        {
            throw new InvalidOperationException($"The TailDb key directory holds {MaxBytes >> 30} GiB of key entries, its limit; compact or split the store.");
        }

        if (chunk == _chunkCount)
        {
            AddChunk();
        }

        ref byte entry = ref Entry(_chunks, (uint)(offset >> 3));
        Unsafe.WriteUnaligned(ref entry, position);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref entry, 8), lengths);
        key.CopyTo(MemoryMarshal.CreateSpan(ref Unsafe.Add(ref entry, HeaderBytes), key.Length));
        _end = offset + size;
        return (uint)(offset >> 3);
    }

    /// <summary>The first byte of entry <paramref name="reference"/>, read through the chunk directory a reader loaded.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ref byte Entry(uint reference)
    {
        return ref Entry(Volatile.Read(ref _chunks), reference);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref byte Entry(byte[][] chunks, uint reference)
    {
        long offset = (long)reference << 3;
        byte[] chunk = chunks[(int)(offset >> ChunkBits)];
        return ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(chunk), (nint)(offset & (ChunkBytes - 1)));
    }

    private void AddChunk()
    {
        byte[][] chunks = _chunks;
        if (_chunkCount == chunks.Length)
        {
            // A reader that loaded the old directory only follows references published before this
            // append, all of which point into chunks the old directory holds too.
            Array.Resize(ref chunks, chunks.Length * 2);
        }

        chunks[_chunkCount] = GC.AllocateUninitializedArray<byte>(ChunkBytes);
        _chunkCount++;
        Volatile.Write(ref _chunks, chunks);
    }
}
