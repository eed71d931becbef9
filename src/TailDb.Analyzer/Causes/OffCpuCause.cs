using TailDb.Analyzer.Intervals;
using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The request's thread was off the CPU and not runnable: asleep (a wait, a lock, a timer, a
/// socket), grouped by who woke it, or held by the kernel in disk I/O. Less every GC pause and
/// runtime suspension (a thread asleep in one was stopped by it: the pause's line) and less the
/// thread's own lock waits (ContentionStart/Stop: the contention line), so what is left is sleep no
/// runtime event explains.
/// </summary>
internal sealed class OffCpuCause(string name, Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
    : ThreadWindowsCause(name, windowsByThread)
{
    public override CauseKind Kind => CauseKind.OffCpu;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Scheduler is not { } scheduler)
        {
            return [];
        }

        var stopped = inputs.StoppedWindows;
        var locksByThread = ThreadWindowsCause.ByThread(inputs.Set.Contention.Windows).ToDictionary(t => t.Key, t => t.Value.Order().ToArray());
        var ignored = new List<(double, double)>();
        var outsideStops = new List<(double, double)>();
        var groups = new Dictionary<string, Dictionary<int, List<(double, double)>>>(StringComparer.Ordinal);
        foreach (var (thread, spans) in inputs.OffCpu)
        {
            foreach (var (span, inFault) in spans)
            {
                // Asleep inside a page fault (reclaim, a page read in): the fault's time (OffCpuInFaultCause).
                if (span.State is not (RunState.Sleeping or RunState.DiskWait) || inFault)
                {
                    continue;
                }

                var name = span.State == RunState.DiskWait
                    ? "off CPU in the kernel (uninterruptible: disk I/O, a page read in)"
                    : span.Holder <= 0 || scheduler.Identify(span.Holder).ProcessId == scheduler.ProcessId
                        ? $"off CPU, asleep (a wait, lock or timer), woken by {scheduler.DescribeHolder(span.Holder)}"
                        // sched_wakeup names the thread on the waking CPU: in an interrupt (a timer's expiry) that is whoever it interrupted.
                        : $"off CPU, asleep (a wait, lock or timer), woken by {scheduler.DescribeHolder(span.Holder)} or an interrupt on its CPU";
                if (!groups.TryGetValue(name, out var group))
                {
                    group = [];
                    groups.Add(name, group);
                }

                var windows = Windows.Group(group, thread);
                outsideStops.Clear();
                Windows.SplitAround(stopped, span.StartMSec, span.StopMSec, outsideStops, ignored);
                var locks = locksByThread.GetValueOrDefault(thread) ?? [];
                foreach (var (start, stop) in outsideStops)
                {
                    Windows.SplitAround(locks, start, stop, windows, ignored);
                }
            }
        }

        // Every waker its own cause; the report names the few that matter to the tail (CauseRows.LumpHolders).
        return groups.OrderBy(g => g.Key, StringComparer.Ordinal)
            .Select(g => (ICause)new OffCpuCause(g.Key, g.Value))
            .ToList();
    }
}
