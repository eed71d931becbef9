using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace TailDb.Storage;

/// <summary>
/// Keys are stored as byte[] and looked up as ReadOnlySpan&lt;byte&gt; through the dictionaries'
/// alternate lookup, so a Get never allocates a key. The hash is <see cref="KeyHasher"/>'s with a
/// per-process random seed: client-chosen keys cannot be crafted to collide (hash flooding).
/// The key directory hashes with its own seed (<see cref="KeyDir.Seed"/>), which hint files keep.
/// </summary>
internal sealed class ByteKeyComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    public static ByteKeyComparer Instance { get; } = new();

    private ByteKeyComparer()
    {
    }

    public bool Equals(byte[]? x, byte[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

    public int GetHashCode([DisallowNull] byte[] obj) => Hash(obj);

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => Same(alternate, other);

    public int GetHashCode(ReadOnlySpan<byte> alternate) => Hash(alternate);

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();

    private static readonly ulong Seed = KeyHasher.NewSeed();

    internal static int Hash(ReadOnlySpan<byte> key) => KeyHasher.Hash(key, Seed);

    /// <summary>
    /// Whether a looked-up key equals a stored one. A key of 8 to 16 bytes (the typical one) is
    /// compared as two overlapping 8-byte words, inline, as <see cref="KeyHasher"/> reads it;
    /// other lengths go to <see cref="MemoryExtensions.SequenceEqual{T}(ReadOnlySpan{T}, ReadOnlySpan{T})"/>.
    /// Not left to SequenceEqual for every length: whether the JIT inlined it into a cache hit
    /// varied between processes (with the profile tiering collected), 20 instructions of a
    /// ~300-instruction hit one run and not the next (docs/benchmarks.md, "Instructions per hit").
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool Same(ReadOnlySpan<byte> key, byte[] stored)
    {
        int n = key.Length;
        if (n != stored.Length)
        {
            return false;
        }

        if (n is >= 8 and <= 16)
        {
            ref byte a = ref MemoryMarshal.GetReference(key);
            ref byte b = ref MemoryMarshal.GetArrayDataReference(stored);
            ulong head = Unsafe.ReadUnaligned<ulong>(ref a) ^ Unsafe.ReadUnaligned<ulong>(ref b);
            ulong tail = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref a, n - 8)) ^ Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref b, n - 8));
            return (head | tail) == 0;
        }

        return key.SequenceEqual(stored);
    }
}
