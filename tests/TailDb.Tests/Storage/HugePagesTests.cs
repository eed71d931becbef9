using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using TailDb.Storage;
using TailDb.TestSupport.Skipping;

namespace TailDb.Tests.Storage;

public class HugePagesTests
{
    [Fact]
    public void An_allocation_is_pinned_and_its_offset_to_a_boundary_lands_on_one()
    {
        byte[] array = HugePages.AllocateUninitialized<byte>(3 * HugePages.Bytes);

        int offset = HugePages.OffsetToBoundary(array);

        Assert.InRange(offset, 0, HugePages.Bytes - 1);
        Assert.Equal(0, (Address(array) + offset) % HugePages.Bytes);
    }

    [TransparentHugePagesFact]
    public void Where_the_kernel_offers_transparent_huge_pages_an_advised_array_is_backed_by_them()
    {
        string mode = File.ReadAllText(TransparentHugePagesFactAttribute.Setting);
        byte[] array = HugePages.AllocateUninitialized<byte>(16 * HugePages.Bytes);
        Array.Fill(array, (byte)1); // the first write faults the pages in

        // The advice covers the 2 MiB-aligned interior: look at the mapping of its first page.
        long interior = Address(array) + HugePages.OffsetToBoundary(array);
        Assert.True(AnonHugeKiB(interior) >= 2048, $"no huge page backs the advised array's interior at {interior:x} ({TransparentHugePagesFactAttribute.Setting}: {mode.Trim()}): " + Mapping(interior));
        GC.KeepAlive(array);
    }

    // The array is pinned (HugePages allocates it so), so its address holds.
    private static long Address(byte[] array) => (long)Unsafe.ByteOffset(ref Unsafe.NullRef<byte>(), ref MemoryMarshal.GetArrayDataReference(array));

    private static string Mapping(long address) => string.Join(" | ", MappingLines(address));

    /// <summary>AnonHugePages of the mapping holding <paramref name="address"/>.</summary>
    private static long AnonHugeKiB(long address) =>
        MappingLines(address).FirstOrDefault(l => l.StartsWith("AnonHugePages:", StringComparison.Ordinal)) is { } line
            ? long.Parse(line["AnonHugePages:".Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture)
            : 0;

    /// <summary>The /proc/self/smaps lines of the mapping holding <paramref name="address"/>: its range line, then its fields.</summary>
    private static List<string> MappingLines(long address)
    {
        var lines = new List<string>();
        bool inside = false;
        foreach (string line in File.ReadLines("/proc/self/smaps"))
        {
            int dash = line.IndexOf('-', StringComparison.Ordinal);
            int space = line.IndexOf(' ', StringComparison.Ordinal);
            if (dash > 0 && space > dash && long.TryParse(line.AsSpan(0, dash), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out long start)
                && long.TryParse(line.AsSpan(dash + 1, space - dash - 1), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out long end))
            {
                inside = address >= start && address < end;
            }

            if (inside)
            {
                lines.Add(line);
            }
        }

        return lines;
    }
}

/// <summary>A fact about Linux's transparent huge pages, skipped where the kernel has them off or has none.</summary>
public sealed class TransparentHugePagesFactAttribute : FactAttribute
{
    public const string Setting = "/sys/kernel/mm/transparent_hugepage/enabled";

    public TransparentHugePagesFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        string? mode = File.Exists(Setting) ? File.ReadAllText(Setting).Trim() : null;
        if (mode is null || mode.Contains("[never]", StringComparison.Ordinal))
        {
            Skip = $"transparent huge pages are off or absent here ({Setting}: {mode ?? "missing"})";
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
