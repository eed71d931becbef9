using System.Buffers.Binary;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace TailDb.LoadTest.FanOut;

/// <summary>
/// twemproxy's ketama distribution (nc_ketama.c, with `hash: fnv1a_64`), computed by the client so
/// the direct side sends each Get to the shard twemproxy would, and so each request's N keys are
/// picked one per shard. Each server named S of equal weight gets 160 points: for i in 0..39, the
/// MD5 of "S-i" gives four little-endian 32-bit points. A key goes to the first point at or above
/// its hash (wrapping to the first). twemproxy's fnv1a_64 is truncated to 32 bits: offset basis
/// 0x84222325, prime 0x1b3. The servers are named in the config (<see cref="TwemproxyConfig"/>), so
/// the ring does not depend on the ports the servers happened to get.
/// </summary>
public sealed class KetamaRing
{
    private const int PointsPerServer = 160;
    private const int PointsPerHash = 4;

    private readonly uint[] _points;
    private readonly int[] _shards;

    public KetamaRing(IReadOnlyList<string> serverNames)
    {
        ArgumentNullException.ThrowIfNull(serverNames);
        if (serverNames.Count == 0)
        {
            throw new ArgumentException("a ring needs at least one server", nameof(serverNames));
        }

        var points = new List<(uint Point, int Shard)>(serverNames.Count * PointsPerServer);
        Span<byte> digest = stackalloc byte[16];
        for (int shard = 0; shard < serverNames.Count; shard++)
        {
            for (int i = 0; i < PointsPerServer / PointsPerHash; i++)
            {
#pragma warning disable CA5351 // Not security: MD5 is how twemproxy's ketama places its points, and the ring must match it.
                MD5.HashData(Encoding.ASCII.GetBytes(string.Create(CultureInfo.InvariantCulture, $"{serverNames[shard]}-{i}")), digest);
#pragma warning restore CA5351
                for (int h = 0; h < PointsPerHash; h++)
                {
                    points.Add((BinaryPrimitives.ReadUInt32LittleEndian(digest[(h * 4)..]), shard));
                }
            }
        }

        // nc_ketama.c sorts by value only (qsort, not stable); equal points between servers do not occur for these names.
        points.Sort((a, b) => a.Point.CompareTo(b.Point));
        _points = [.. points.Select(p => p.Point)];
        _shards = [.. points.Select(p => p.Shard)];
        Count = serverNames.Count;
    }

    /// <summary>How many servers the ring spreads keys over.</summary>
    public int Count { get; }

    /// <summary>The shard (index into the server names) twemproxy sends <paramref name="key"/> to.</summary>
    public int ShardOf(ReadOnlySpan<byte> key)
    {
        uint hash = Fnv1a64Truncated(key);
        int index = Array.BinarySearch(_points, hash);
        if (index < 0)
        {
            index = ~index;
        }

        // Equal points: twemproxy's binary search lands on the first of them.
        while (index > 0 && _points[index - 1] == hash)
        {
            index--;
        }

        return _shards[index == _points.Length ? 0 : index];
    }

    /// <summary>twemproxy's hash_fnv1a_64, which keeps only the low 32 bits of the 64-bit basis and prime.</summary>
    public static uint Fnv1a64Truncated(ReadOnlySpan<byte> key)
    {
        uint hash = 0x84222325;
        foreach (byte b in key)
        {
            hash ^= b;
            hash *= 0x1b3;
        }

        return hash;
    }
}
