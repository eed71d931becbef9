using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// The request's thread was runnable and not run: it waited for a CPU while another thread had it,
/// less the GC pauses and runtime suspensions while a thread of this process held it (the stop's).
/// One cause per holder (the thread on the CPU the request's thread was queued on, grouped as the
/// process it belongs to, or by thread within the traced process), so the verdict can say "waited
/// for a CPU held by stress-ng-cpu (pid 4242)"; the report names the few that matter to the tail.
/// A wait behind the recording's own threads (<see cref="InstrumentThreads"/>) is one cause of its
/// own, counted as the measurement's cost.
/// </summary>
internal sealed class CpuWaitCause(string holder, Dictionary<int, List<(double Start, double Stop)>> windowsByThread, bool measurement = false)
    : ThreadWindowsCause($"waiting for a CPU (runnable, not run), held by {holder}", windowsByThread)
{
    /// <summary>The one holder name of every thread of the recording itself.</summary>
    public const string Recording = "the recording itself (perf, the EventPipe threads)";

    public override CauseKind Kind => measurement ? CauseKind.RecordingCpuWait : CauseKind.CpuWait;

    public override bool IsMeasurement => measurement;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Scheduler is not { } scheduler)
        {
            return [];
        }

        var stopped = inputs.StoppedWindows;
        var insideStops = new List<(double, double)>();
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

                var holder = span.Holder > 0 && InstrumentThreads.Is(scheduler.Identify(span.Holder), scheduler.ProcessId)
                    ? Recording
                    : scheduler.DescribeHolder(span.Holder);
                if (!groups.TryGetValue(holder, out var group))
                {
                    group = [];
                    groups.Add(holder, group);
                }

                var windows = Intervals.Windows.Group(group, thread);
                if (span.Holder > 0 && scheduler.Identify(span.Holder).ProcessId == scheduler.ProcessId)
                {
                    // Inside a GC pause or a runtime suspension a thread of this process that holds
                    // the CPU is doing the stop's work (a workstation GC runs on the thread that
                    // triggered it), and the waiting thread would be stopped with a CPU too: the
                    // pause's line holds that time, as it holds a sleeping thread's (OffCpuCause).
                    // Another process's hold is not: the runtime cannot stop a thread that is not
                    // run, so the pause waits on that holder.
                    insideStops.Clear();
                    Intervals.Windows.SplitAround(stopped, span.StartMSec, span.StopMSec, windows, insideStops);
                }
                else
                {
                    windows.Add((span.StartMSec, span.StopMSec));
                }
            }
        }

        // One cause per holder: which few are named is decided by their share of the slow set's
        // time (CauseRows.LumpHolders), not here by their total, where a busy build outvotes a hog
        // that held the CPU only inside the slow requests.
        var causes = new List<ICause>(groups.Count);
        foreach (var (holder, group) in groups.OrderBy(g => g.Key, StringComparer.Ordinal))
        {
            causes.Add(new CpuWaitCause(holder, group, measurement: holder == Recording));
        }

        return causes;
    }
}
