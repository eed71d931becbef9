using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The request's thread was runnable and not run: it waited for a CPU while another thread had it.
/// One cause per holder (the thread on the CPU the request's thread was queued on, grouped as the
/// process it belongs to, or by thread within the traced process), so the verdict can say "waited
/// for a CPU held by stress-ng-cpu (pid 4242)"; the report names the few that matter to the tail.
/// </summary>
internal sealed class CpuWaitCause(string holder, Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
    : ThreadWindowsCause($"waiting for a CPU (runnable, not run), held by {holder}", windowsByThread)
{
    public override CauseKind Kind => CauseKind.CpuWait;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Scheduler is not { } scheduler)
        {
            return [];
        }

        var groups = new Dictionary<string, Dictionary<int, List<(double, double)>>>(StringComparer.Ordinal);
        foreach (var (thread, spans) in inputs.OffCpu)
        {
            foreach (var (span, inFault) in spans)
            {
                // Preempted inside a page fault: the fault's time (OffCpuInFaultCause).
                if (span.State != RunState.Runnable || inFault)
                {
                    continue;
                }

                var holder = scheduler.DescribeHolder(span.Holder);
                if (!groups.TryGetValue(holder, out var group))
                {
                    group = [];
                    groups.Add(holder, group);
                }

                Intervals.Windows.Group(group, thread).Add((span.StartMSec, span.StopMSec));
            }
        }

        // One cause per holder: which few are named is decided by their share of the slow set's
        // time (CauseRows.LumpHolders), not here by their total, where a busy build outvotes a hog
        // that held the CPU only inside the slow requests.
        var causes = new List<ICause>(groups.Count);
        foreach (var (holder, group) in groups.OrderBy(g => g.Key, StringComparer.Ordinal))
        {
            causes.Add(new CpuWaitCause(holder, group));
        }

        return causes;
    }
}
