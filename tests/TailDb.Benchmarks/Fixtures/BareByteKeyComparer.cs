using System.Diagnostics.CodeAnalysis;
using TailDb.Storage;

namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// The baseline dictionary's comparer: byte[] keys looked up as spans through .NET's alternate
/// lookup (no key allocation), hashed and compared as the store's cache hashes and compares keys
/// (<see cref="KeyHasher"/>, <see cref="ByteKeyComparer.Same"/>), so the floor does the same
/// hashing and comparing work and the ratio is what the store adds around it. A fixed seed,
/// not a random one: every benchmark process then buckets the keys alike (the seed would
/// otherwise move the bare row's collisions between BenchmarkDotNet's processes).
/// </summary>
public sealed class BareByteKeyComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    private const ulong Seed = 20261126;

    public static BareByteKeyComparer Instance { get; } = new();

    public bool Equals(byte[]? x, byte[]? y) => x is not null && y is not null && x.AsSpan().SequenceEqual(y);

    public int GetHashCode([DisallowNull] byte[] obj) => GetHashCode(obj.AsSpan());

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => ByteKeyComparer.Same(alternate, other);

    public int GetHashCode(ReadOnlySpan<byte> alternate) => KeyHasher.Hash(alternate, Seed);

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
}
