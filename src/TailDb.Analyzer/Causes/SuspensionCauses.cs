using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// Non-GC suspensions by reason, in reason order: <see cref="RuntimeSuspensionCause"/> per reason,
/// or <see cref="SamplerSuspensionCause"/> for SuspendOther when the trace has samples, whose
/// unusual waits for a safe point become a <see cref="SafePointWaitCause"/> after them.
/// </summary>
internal static class SuspensionCauses
{
    /// <summary>Ticks held up by at least this much name their holders (shorter waits are scheduling noise).</summary>
    private const double HeldTickMSec = 1.0;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var set = inputs.Set;
        var byReason = new SortedDictionary<int, List<(double Start, double Reached, double Stop)>>();
        var windows = set.Suspensions.Windows;
        for (var i = 0; i < windows.Count; i++)
        {
            var window = windows[i];
            if (!byReason.TryGetValue(window.Tag, out var list))
            {
                list = [];
                byReason.Add(window.Tag, list);
            }

            list.Add((window.StartMSec, set.Suspensions.ReachedMSec[i], window.StopMSec));
        }

        var safePointWaits = new List<(double, double)>();
        var causes = new List<ICause>();
        foreach (var (reason, list) in byReason)
        {
            var suspendReason = (GCSuspendEEReason)reason;
            if (suspendReason == GCSuspendEEReason.SuspendOther && inputs.Samples is not null)
            {
                causes.Add(new SamplerSuspensionCause(SplitSafePointWaits(inputs, list, safePointWaits)));
            }
            else
            {
                causes.Add(new RuntimeSuspensionCause(SuspensionComputer.Describe(suspendReason), [.. list.Select(w => (w.Start, w.Stop))]));
            }
        }

        if (safePointWaits.Count > 0)
        {
            safePointWaits.Sort();
            var ticks = byReason.GetValueOrDefault((int)GCSuspendEEReason.SuspendOther) ?? [];
            causes.Add(new SafePointWaitCause(safePointWaits, Holders(inputs, ticks, safePointWaits)));
        }

        return causes;
    }

    /// <summary>
    /// The sampler's ticks minus the part of each wait for a safe point beyond the ticks' median wait;
    /// that part goes to <paramref name="waits"/>. Wherever a GC pause covers a tick (a tick that
    /// waits for a GC to finish), the time is the GC's, already counted as its pause, and neither.
    /// </summary>
    private static List<(double, double)> SplitSafePointWaits(CauseInputs inputs, List<(double Start, double Reached, double Stop)> ticks, List<(double, double)> waits)
    {
        var reaching = ticks.Select(t => t.Reached - t.Start).Order().ToArray();
        var usual = reaching[reaching.Length / 2];
        var gcs = inputs.GcPauses;
        var own = new List<(double, double)>(ticks.Count);
        var covered = new List<(double, double)>();
        foreach (var (start, reached, stop) in ticks)
        {
            var held = Math.Min(start + usual, reached);
            Windows.SplitAround(gcs, start, held, own, covered);
            Windows.SplitAround(gcs, held, reached, waits, covered);
            Windows.SplitAround(gcs, reached, stop, own, covered);
        }

        return own;
    }

    /// <summary>
    /// What the threads not serving requests were running in the ticks that waited past their usual
    /// wait for a safe point, by leaf frame, most often first: who held the process up.
    /// </summary>
    private static List<(string Frame, int Ticks)> Holders(CauseInputs inputs, List<(double Start, double Reached, double Stop)> ticks, List<(double Start, double Stop)> waits)
    {
        var samples = inputs.Samples;
        if (samples is null)
        {
            return [];
        }

        var requests = inputs.Set.Requests.Requests;
        var serving = new HashSet<int>();
        for (var i = 0; i < requests.Count; i++)
        {
            serving.Add(requests[i].ThreadId);
        }

        var held = new WindowIndex(waits);
        var counts = new Dictionary<string, int>();
        foreach (var (start, reached, stop) in ticks)
        {
            if (held.Overlap(start, reached) < HeldTickMSec)
            {
                continue;
            }

            // The sampler walks the stacks once every thread has stopped: the tick's samples sit in [reached, stop].
            foreach (var thread in samples.Threads)
            {
                var (first, end) = thread.Range(reached, stop + 1e-3);
                for (var i = first; i < end; i++)
                {
                    var stack = thread.StackIds[i];
                    if (!serving.Contains(thread.ThreadId) && CanHoldASuspension(thread.CategoryOf(i, samples), samples.LeafFrames[stack]))
                    {
                        counts[samples.LeafFrames[stack]] = counts.GetValueOrDefault(samples.LeafFrames[stack]) + 1;
                    }
                }
            }
        }

        return [.. counts.OrderByDescending(c => c.Value).ThenBy(c => c.Key, StringComparer.Ordinal).Select(c => (c.Key, c.Value))];
    }

    /// <summary>
    /// A thread blocked, parked or inside a P/Invoke (Interop+..., or a file or socket system call
    /// perf saw) runs in preemptive mode: a suspension never waits for it.
    /// </summary>
    private static bool CanHoldASuspension(SampleCategory category, string leaf) =>
        category is not (SampleCategory.Waiting or SampleCategory.ThreadPool or SampleCategory.Contention or SampleCategory.SafePoint
            or SampleCategory.KernelFile or SampleCategory.KernelNetwork)
        && !leaf.StartsWith("Interop+", StringComparison.Ordinal);
}
