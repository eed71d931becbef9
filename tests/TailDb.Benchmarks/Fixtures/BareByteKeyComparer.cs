using System.Diagnostics.CodeAnalysis;

namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// The baseline dictionary's comparer: byte[] keys looked up as spans through .NET's alternate
/// lookup (no key allocation), hashed with HashCode.AddBytes. The benchmark's own copy, not the
/// store's, so a slower comparer in the store shows up as a worse ratio.
/// </summary>
public sealed class BareByteKeyComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    public static BareByteKeyComparer Instance { get; } = new();

    public bool Equals(byte[]? x, byte[]? y) => x is not null && y is not null && x.AsSpan().SequenceEqual(y);

    public int GetHashCode([DisallowNull] byte[] obj) => GetHashCode(obj.AsSpan());

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

    public int GetHashCode(ReadOnlySpan<byte> alternate)
    {
        var hash = default(HashCode);
        hash.AddBytes(alternate);
        return hash.ToHashCode();
    }

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
}
