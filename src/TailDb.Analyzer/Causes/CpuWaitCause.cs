using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The request's thread was runnable and not run: it waited for a CPU while another thread had it.
/// One cause per holder (the thread that had the CPUs longest in each wait, grouped as the process
/// it belongs to, or by thread within the traced process), the largest few named and the rest
/// together, so the verdict can say "waited for a CPU held by stress-ng-cpu (pid 4242)".
/// </summary>
internal sealed class CpuWaitCause(string holder, bool ownProcess, Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
    : ThreadWindowsCause($"waiting for a CPU (runnable, not run), held by {holder}", windowsByThread)
{
    /// <summary>How many holders get a line of their own; the rest share one.</summary>
    internal const int NamedHolders = 8;

    public override CauseKind Kind => CauseKind.CpuWait;

    /// <summary>Held by a thread of the traced process itself (another load thread, the GC's), not by the machine.</summary>
    public bool OwnProcess { get; } = ownProcess;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Scheduler is not { } scheduler)
        {
            return [];
        }

        var groups = new Dictionary<string, (bool Own, double Total, Dictionary<int, List<(double, double)>> Windows)>(StringComparer.Ordinal);
        foreach (var thread in scheduler.Threads)
        {
            foreach (var span in scheduler.SpansOf(thread))
            {
                if (span.State != RunState.Runnable)
                {
                    continue;
                }

                var holder = scheduler.DescribeHolder(span.Holder);
                if (!groups.TryGetValue(holder, out var group))
                {
                    group = (scheduler.Identify(span.Holder).ProcessId == scheduler.ProcessId, 0, []);
                }

                group.Total += span.StopMSec - span.StartMSec;
                Intervals.Windows.Group(group.Windows, thread).Add((span.StartMSec, span.StopMSec));
                groups[holder] = group;
            }
        }

        var ordered = groups.OrderByDescending(g => g.Value.Total).ThenBy(g => g.Key, StringComparer.Ordinal).ToList();
        var causes = new List<ICause>();
        foreach (var (holder, group) in ordered.Take(NamedHolders))
        {
            causes.Add(new CpuWaitCause(holder, group.Own, group.Windows));
        }

        if (ordered.Count > NamedHolders)
        {
            var rest = new Dictionary<int, List<(double, double)>>();
            foreach (var (_, group) in ordered.Skip(NamedHolders))
            {
                foreach (var (thread, windows) in group.Windows)
                {
                    Intervals.Windows.Group(rest, thread).AddRange(windows);
                }
            }

            foreach (var list in rest.Values)
            {
                list.Sort();
            }

            causes.Add(new CpuWaitCause($"{ordered.Count - NamedHolders} other processes or threads", ownProcess: false, rest));
        }

        return causes;
    }
}
