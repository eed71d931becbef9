using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Leaf frames by sample count; stacks that share a leaf and a category are merged. The category
/// is part of the key: one kernel leaf (an interrupt-enable, a copy) sits under file calls,
/// socket calls and faults alike, and one row for it would carry whichever category came last.
/// </summary>
internal static class TopFrames
{
    /// <summary>The leading frames of one thread's samples in [from, to).</summary>
    public static List<FrameRow> For(SampleComputer? samples, int threadId, double fromMSec, double toMSec, double totalMs, int rows)
    {
        var counts = new Dictionary<int, int>();
        if (samples is not null && samples.TryGetThread(threadId, out var thread))
        {
            Count(thread, fromMSec, toMSec, counts);
        }

        return Rank(counts, samples, totalMs, rows);
    }

    public static void Count(ThreadSamples thread, double fromMSec, double toMSec, Dictionary<int, int> counts)
    {
        var (first, end) = thread.Range(fromMSec, toMSec);
        for (var i = first; i < end; i++)
        {
            counts[thread.StackIds[i]] = counts.GetValueOrDefault(thread.StackIds[i]) + 1;
        }
    }

    public static List<FrameRow> Rank(Dictionary<int, int> countsByStack, SampleComputer? samples, double totalMs, int rows)
    {
        var byLeaf = new Dictionary<(string Leaf, SampleCategory Category), double>();
        if (samples is not null)
        {
            foreach (var (stack, count) in countsByStack)
            {
                var key = (samples.LeafFrames[stack], samples.Categories[stack]);
                byLeaf[key] = byLeaf.GetValueOrDefault(key) + (count * samples.IntervalMSec);
            }
        }

        var list = new List<FrameRow>();
        foreach (var ((leaf, category), ms) in byLeaf)
        {
            list.Add(new FrameRow(leaf, SampleComputer.CategoryName(category), Population.Round(ms), totalMs > 0 ? Math.Round(ms / totalMs, 4) : 0));
        }

        list.Sort((a, b) => b.Ms != a.Ms ? b.Ms.CompareTo(a.Ms)
            : string.CompareOrdinal(a.Frame, b.Frame) is var byFrame and not 0 ? byFrame : string.CompareOrdinal(a.Category, b.Category));
        return list.Count > rows ? list[..rows] : list;
    }
}
