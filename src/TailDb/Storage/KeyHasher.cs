using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace TailDb.Storage;

/// <summary>
/// The keys' in-memory hash (key directory and value cache), seeded: wyhash's construction (one
/// 64x64→128-bit multiply per 16 bytes, folded). Two reasons it is not <see cref="HashCode"/>:
/// HashCode's seed is per process and cannot be set, so a hint file could not carry hashes a
/// later process reuses (reopen would rehash every key); and for the 16-byte keys of a typical
/// workload this is two multiplies instead of HashCode's four rounds and finalizer.
/// A random seed keeps client-chosen keys from being crafted to collide (hash flooding), as
/// HashCode's did; a store's key directory keeps its seed in its hint files (docs/store.md).
/// </summary>
internal static class KeyHasher
{
    private const ulong P0 = 0xa0761d6478bd642f;
    private const ulong P1 = 0xe7037ed1a0b428db;
    private const ulong P2 = 0x8ebc6af09c88c6e3;

    /// <summary>A seed from the OS's random source.</summary>
    public static ulong NewSeed()
    {
        Span<byte> bytes = stackalloc byte[sizeof(ulong)];
        RandomNumberGenerator.Fill(bytes);
        return MemoryMarshal.Read<ulong>(bytes);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Hash(ReadOnlySpan<byte> key, ulong seed)
    {
        ref byte p = ref MemoryMarshal.GetReference(key);
        int n = key.Length;
        ulong a, b;
        seed ^= P0;
        if (n <= 16)
        {
            if (n >= 8)
            {
                // Two overlapping reads cover 8..16 bytes; the length below tells them apart.
                a = Unsafe.ReadUnaligned<ulong>(ref p);
                b = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, n - 8));
            }
            else if (n >= 4)
            {
                a = Unsafe.ReadUnaligned<uint>(ref p);
                b = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref p, n - 4));
            }
            else if (n > 0)
            {
                a = ((ulong)p << 16) | ((ulong)Unsafe.Add(ref p, n >> 1) << 8) | Unsafe.Add(ref p, n - 1);
                b = 0;
            }
            else
            {
                a = b = 0;
            }
        }
        else
        {
            return Long(ref p, n, seed);
        }

        return Finish(a, b, seed, n);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Long(ref byte p, int n, ulong seed)
    {
        int i = 0;
        for (; n - i > 16; i += 16)
        {
            seed = Mum(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, i)) ^ P1, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, i + 8)) ^ seed);
        }

        // The last 16 bytes, overlapping the loop's last block when the length is not a multiple of 16.
        ulong a = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, n - 16));
        ulong b = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, n - 8));
        return Finish(a, b, seed, n);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Finish(ulong a, ulong b, ulong seed, int n)
    {
        ulong h = Mum(a ^ P1, b ^ seed);
        h = Mum(h ^ P2, (ulong)n ^ P1 ^ seed);
        return (int)(h ^ (h >> 32));
    }

    /// <summary>The 128-bit product's halves folded together.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Mum(ulong a, ulong b)
    {
        ulong high = Math.BigMul(a, b, out ulong low);
        return high ^ low;
    }
}
