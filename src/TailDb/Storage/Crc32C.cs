using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace TailDb.Storage;

/// <summary>
/// CRC32C (Castagnoli) over a span, 8 bytes per step through <see cref="BitOperations.Crc32C(uint, ulong)"/>,
/// which uses the SSE4.2 / ARMv8 CRC instruction when the CPU has one. System.IO.Hashing has no
/// CRC32C and is not in the box, hence this loop.
/// </summary>
internal static class Crc32C
{
    public static uint Compute(ReadOnlySpan<byte> data) => Append(0, data);

    /// <summary>Continues a CRC: <c>Append(Compute(a), b) == Compute(a ++ b)</c>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        uint state = ~crc;
        ref byte p = ref MemoryMarshal.GetReference(data);
        nuint length = (nuint)data.Length;
        nuint i = 0;
        for (; i + 8 <= length; i += 8)
        {
            state = BitOperations.Crc32C(state, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, i)));
        }

        // A 4-byte step for the tail: a hint entry's 36 checked bytes take 5 steps instead of 8.
        if (i + 4 <= length)
        {
            state = BitOperations.Crc32C(state, Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref p, i)));
            i += 4;
        }

        for (; i < length; i++)
        {
            state = BitOperations.Crc32C(state, Unsafe.Add(ref p, i));
        }

        return ~state;
    }
}
