using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// The scheduler's causes come one per holder (who held the CPU, who woke the thread): on a busy
/// machine that is dozens of rows. The few that matter to the tail are named, by their share of the
/// slow set's time (a hog that ran only inside the slow requests outranks a build that ran all
/// along); the rest of each kind share one row. Their pieces never overlap (a thread waits behind
/// one holder at a time), so the shared row's totals are sums.
/// </summary>
internal static class HolderRows
{
    /// <summary>How many holders of one kind get a row of their own.</summary>
    public const int Named = 8;

    public static void Lump(List<CauseRow> rows, double slowTime, double restTime)
    {
        ArgumentNullException.ThrowIfNull(rows);
        foreach (var kind in (ReadOnlySpan<CauseKind>)[CauseKind.CpuWait, CauseKind.OffCpu])
        {
            var ofKind = rows.Where(r => r.Kind == kind && r.Unit == CauseUnit.Milliseconds)
                .OrderByDescending(r => r.SlowTotal).ThenByDescending(r => r.RestTotal).ThenBy(r => r.Cause, StringComparer.Ordinal)
                .ToList();
            if (ofKind.Count <= Named)
            {
                continue;
            }

            var rest = ofKind.Skip(Named).ToList();
            foreach (var row in rest)
            {
                rows.Remove(row);
            }

            double slow = rest.Sum(r => r.SlowTotal), other = rest.Sum(r => r.RestTotal), queued = rest.Sum(r => r.SlowQueueTotal);
            var slowShare = slowTime > 0 ? Math.Min(1, slow / slowTime) : 0;
            var restShare = restTime > 0 ? Math.Min(1, other / restTime) : 0;
            var name = kind == CauseKind.CpuWait
                ? $"waiting for a CPU (runnable, not run), held by {rest.Count} other processes or threads"
                : $"off CPU (asleep or in the kernel), woken by {rest.Count} others";
            rows.Add(new CauseRow(name, rest[0].Scope, CauseUnit.Milliseconds, Math.Round(slowShare, 4), Math.Round(restShare, 4),
                restShare > 0 ? Math.Round(slowShare / restShare, 2) : null, Population.Round(slow), Population.Round(other), kind,
                Population.Round(queued), Measurement: false, EventBased: true));
        }
    }
}
