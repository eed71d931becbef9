using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The request's thread left the CPU inside a page fault and was off it until it ran again:
/// preempted while the kernel zeroed its pages (on a busy machine a fault-heavy request waits for
/// the CPU as long as it faults), or asleep in reclaim. That time is the faults', as a thread-time
/// view charges time off the CPU to the stack the thread left with. The preempted part is the
/// machine's too: its own line, which the verdict counts with the other waits for a CPU.
/// </summary>
internal sealed class OffCpuInFaultCause(bool preempted, Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
    : ThreadWindowsCause(preempted ? "page faults: preempted mid-fault, waiting for a CPU" : "page faults: asleep mid-fault (reclaim, a page read in)", windowsByThread)
{
    public override CauseKind Kind => preempted ? CauseKind.CpuWaitInFault : CauseKind.OffCpuInFault;

    public override CauseGroup Group => CauseGroup.PageFaults;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Scheduler is null)
        {
            return [];
        }

        var preempted = new Dictionary<int, List<(double, double)>>();
        var asleep = new Dictionary<int, List<(double, double)>>();
        foreach (var (thread, spans) in inputs.OffCpu)
        {
            foreach (var (span, inFault) in spans)
            {
                if (inFault && span.State != RunState.Unrecorded)
                {
                    Intervals.Windows.Group(span.State == RunState.Runnable ? preempted : asleep, thread).Add((span.StartMSec, span.StopMSec));
                }
            }
        }

        var causes = new List<ICause>(2);
        if (preempted.Count > 0)
        {
            causes.Add(new OffCpuInFaultCause(preempted: true, preempted));
        }

        if (asleep.Count > 0)
        {
            causes.Add(new OffCpuInFaultCause(preempted: false, asleep));
        }

        return causes;
    }
}
