using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace TailDb.Storage;

/// <summary>
/// Large arrays the key directory fills at once (its slot table, the arena's slabs), allocated so
/// Linux can back them with 2 MiB transparent huge pages: pinned (the address, and so the
/// alignment, never moves), not zeroed by the GC, and advised <c>MADV_HUGEPAGE</c> before the
/// first write touches them. Distributions default THP to "madvise", and the GC advises nothing,
/// so without this each 4 KiB page of a 48 MB key directory is its own fault. On this VM a fault
/// costs ~11 µs (64 MiB touched page by page: 187 ms; advised: 4.4 ms), which made the fresh
/// faults, not the hint file, most of a 1M-key reopen (docs/store.md, "Huge pages").
/// Elsewhere, or with THP off, the advice is ignored and nothing else changes.
/// </summary>
internal static partial class HugePages
{
    public const int Bytes = 2 << 20;

    private const int MadvHugePage = 14;

    /// <summary>A pinned array of <paramref name="length"/> elements, advised over its 2 MiB-aligned interior; its contents are undefined.</summary>
    public static T[] AllocateUninitialized<T>(int length)
        where T : unmanaged
    {
        T[] array = GC.AllocateUninitializedArray<T>(length, pinned: true);
        Advise(MemoryMarshal.AsBytes(array.AsSpan()));
        return array;
    }

    /// <summary>Bytes from <paramref name="array"/>'s first element to the first 2 MiB boundary at or after it (the array must be pinned).</summary>
    public static unsafe int OffsetToBoundary(byte[] array)
    {
        nint start = (nint)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(array));
        return (int)(((start + Bytes - 1) & ~(nint)(Bytes - 1)) - start);
    }

    private static unsafe void Advise(Span<byte> memory)
    {
        if (!OperatingSystem.IsLinux() || memory.Length < Bytes)
        {
            return;
        }

        nint start = (nint)Unsafe.AsPointer(ref MemoryMarshal.GetReference(memory));
        nint first = (start + Bytes - 1) & ~(nint)(Bytes - 1);
        nint end = (start + memory.Length) & ~(nint)(Bytes - 1);
        if (end > first)
        {
            // A hint: a kernel without THP, or with it off, refuses or ignores it and the pages stay 4 KiB.
            _ = Madvise(first, (nuint)(end - first), MadvHugePage);
        }
    }

    [LibraryImport("libc", EntryPoint = "madvise")]
    private static partial int Madvise(nint address, nuint length, int advice);
}
