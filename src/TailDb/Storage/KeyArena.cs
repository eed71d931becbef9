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
/// <para>
/// Chunks are cut from slabs: the first two chunks are slabs of their own, then each slab holds a
/// quarter as many chunks as the arena holds already (2 to 32), plus one, so a growing arena
/// allocates few arrays and holds at most a quarter more than it fills, plus 3 MiB. A slab of more
/// than one chunk is a <see cref="HugePages"/> array with a huge page of slack, its chunks laid
/// from a 2 MiB boundary (the extra chunk goes in the slack): a million keys' 32 MB of entries
/// fault in as huge pages, not as 8,000 small ones. A chunk is its slab and an offset into it, so
/// an entry's <c>ref</c> points into a managed array and keeps it alive.
/// </para>
/// </summary>
internal sealed class KeyArena
{
    public const int ChunkBits = 20;
    public const int ChunkBytes = 1 << ChunkBits;
    public const int HeaderBytes = 16;

    /// <summary>References 0 and 1 are never entries: the table uses them for empty and deleted slots.</summary>
    public const uint FirstReference = 2;

    private const long MaxBytes = (long)uint.MaxValue << 3;

    /// <summary>The largest slab, in chunks: past it an arena grows by 32 MiB at a time.</summary>
    private const int MaxSlabChunks = 32;

    /// <summary>The largest slab <see cref="Reserve"/> makes: 1 GiB, a bulk load of some 30M keys.</summary>
    private const int MaxReservedSlabChunks = 1024;

    private Chunk[] _chunks = new Chunk[4];
    private int _chunkCount;
    private long _end = FirstReference * 8;

    // The slab the next chunks are cut from (writer only).
    private byte[]? _slab;
    private int _slabNext;
    private int _slabChunksLeft;
    private long _reservedBytes;

    /// <summary>Bytes held by the slabs (what the arena costs in memory, used or not).</summary>
    public long ReservedBytes => _reservedBytes;

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

    /// <summary>Bytes <paramref name="entries"/> entries of <paramref name="keyBytes"/> key bytes in all take: exact when every key has the same length, else at most 7 B per entry over.</summary>
    public static long BytesFor(int entries, long keyBytes) =>
        entries <= 0 || keyBytes < 0 ? 0
        : keyBytes % entries == 0 ? (long)entries * EntrySize((int)Math.Min(RecordFormat.MaxKeyBytes, keyBytes / entries))
        : ((long)entries * (HeaderBytes + 7)) + keyBytes;

    /// <summary>
    /// Makes the chunks that take the next <paramref name="bytes"/> of entries one slab (a bulk load
    /// that knows its size), instead of the several a growing arena would cut. Writer only.
    /// </summary>
    public void Reserve(long bytes)
    {
        if (_slabChunksLeft > 0 || bytes <= ChunkBytes)
        {
            return; // a fresh arena's bulk load is the case this is for
        }

        // AddSlab adds one chunk, which covers what entries lose at chunk ends.
        long chunks = (bytes + ChunkBytes - 1) >> ChunkBits;
        AddSlab((int)Math.Min(MaxReservedSlabChunks, chunks));
    }

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
    private static ref byte Entry(Chunk[] chunks, uint reference)
    {
        long offset = (long)reference << 3;
        ref Chunk chunk = ref chunks[(int)(offset >> ChunkBits)];
        return ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(chunk.Slab), (nint)chunk.Offset + (nint)(offset & (ChunkBytes - 1)));
    }

    private void AddChunk()
    {
        if (_slabChunksLeft == 0)
        {
            // A quarter of the chunks held so far, from the third chunk on.
            AddSlab(_chunkCount < 2 ? 1 : Math.Clamp(_chunkCount / 4, 2, MaxSlabChunks));
        }

        Chunk[] chunks = _chunks;
        if (_chunkCount == chunks.Length)
        {
            // A reader that loaded the old directory only follows references published before this
            // append, all of which point into chunks the old directory holds too.
            Array.Resize(ref chunks, chunks.Length * 2);
        }

        chunks[_chunkCount] = new Chunk(_slab!, _slabNext);
        _slabNext += ChunkBytes;
        _slabChunksLeft--;
        _chunkCount++;
        Volatile.Write(ref _chunks, chunks);
    }

    /// <summary>A slab of at least <paramref name="chunks"/> chunks (one more when huge-page aligned).</summary>
    private void AddSlab(int chunks)
    {
        if (chunks == 1)
        {
            _slab = GC.AllocateUninitializedArray<byte>(ChunkBytes);
            _slabNext = 0;
        }
        else
        {
            // A huge page of slack lets the chunks be laid from a 2 MiB boundary, and the slack is
            // not lost: one more chunk fits, just before the boundary or after the last one.
            _slab = HugePages.AllocateUninitialized<byte>((chunks * ChunkBytes) + HugePages.Bytes);
            int boundary = HugePages.OffsetToBoundary(_slab);
            _slabNext = boundary >= ChunkBytes ? boundary - ChunkBytes : boundary;
            chunks++;
        }

        _slabChunksLeft = chunks;
        _reservedBytes += (long)chunks * ChunkBytes;
    }

    /// <summary>A chunk: the slab it was cut from and where in it the chunk starts.</summary>
    private readonly record struct Chunk(byte[] Slab, int Offset);
}
