using System.Diagnostics.CodeAnalysis;

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

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

    public int GetHashCode(ReadOnlySpan<byte> alternate) => Hash(alternate);

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();

    private static readonly ulong Seed = KeyHasher.NewSeed();

    internal static int Hash(ReadOnlySpan<byte> key) => KeyHasher.Hash(key, Seed);
}
