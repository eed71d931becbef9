namespace TailDb.Analyzer.Intervals;

/// <summary>
/// Arithmetic on time windows [start, stop) in milliseconds: merging, cutting around other windows,
/// grouping by thread. The one place the analyzer does it; <see cref="WindowIndex"/> answers overlaps.
/// </summary>
internal static class Windows
{
    /// <summary>[from, to) minus the sorted <paramref name="gcs"/> into <paramref name="outside"/>; the covered parts into <paramref name="covered"/>.</summary>
    public static void SplitAround((double Start, double Stop)[] gcs, double from, double to, List<(double, double)> outside, List<(double, double)> covered)
    {
        var at = from;
        var i = Array.BinarySearch(gcs, (from, double.NegativeInfinity));
        for (i = Math.Max(0, (i < 0 ? ~i : i) - 1); i < gcs.Length && gcs[i].Start < to && at < to; i++)
        {
            var (start, stop) = (Math.Max(gcs[i].Start, at), Math.Min(gcs[i].Stop, to));
            if (stop <= start)
            {
                continue;
            }

            if (start > at)
            {
                outside.Add((at, start));
            }

            covered.Add((start, stop));
            at = stop;
        }

        if (to > at)
        {
            outside.Add((at, to));
        }
    }

    /// <summary>The windows merged into disjoint windows sorted by start (sorts <paramref name="all"/> in place).</summary>
    public static (double Start, double Stop)[] Merge(List<(double Start, double Stop)> all)
    {
        all.Sort();
        var merged = new List<(double Start, double Stop)>(all.Count);
        foreach (var (start, stop) in all)
        {
            if (merged.Count > 0 && start <= merged[^1].Stop)
            {
                merged[^1] = (merged[^1].Start, Math.Max(merged[^1].Stop, stop));
            }
            else
            {
                merged.Add((start, stop));
            }
        }

        return [.. merged];
    }

    /// <summary>The list of <paramref name="thread"/> in <paramref name="byThread"/>, added empty when missing.</summary>
    public static List<T> Group<T>(Dictionary<int, List<T>> byThread, int thread)
    {
        if (!byThread.TryGetValue(thread, out var list))
        {
            list = [];
            byThread.Add(thread, list);
        }

        return list;
    }
}
