using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;
using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Causes;

/// <summary>What causes are made from: the trace's computers, its samples, and the views of them several causes share.</summary>
internal sealed class CauseInputs(ComputerSet set, SampleComputer? samples, SchedulerModel? scheduler = null)
{
    /// <summary>The scheduler's view (perf's sched_switch/sched_wakeup), when the recording has one.</summary>
    public SchedulerModel? Scheduler { get; } = scheduler;

    private (double Start, double Stop)[]? _gcPauses;
    private (double Start, double Stop)[]? _stopped;
    private Dictionary<int, List<(double Start, double Stop)>>? _services;
    private (int Thread, (ThreadStateSpan Span, bool InFault)[] Spans)[]? _offCpu;

    public ComputerSet Set { get; } = set ?? throw new ArgumentNullException(nameof(set));

    public SampleComputer? Samples { get; } = samples;

    /// <summary>The sample causes' one pass over a window's samples; null without samples or a measured interval.</summary>
    public SampleClassifier? Classifier { get; } = SampleClassifier.For(set, samples);

    /// <summary>
    /// Whether a stretch off the CPU began inside a page fault: the thread left the CPU preempted (R)
    /// or held by the kernel (D: reclaim, a page read in, the mm lock), never by its own sleep (S:
    /// a wait, a timer), and its last sample before then, within one and a half sampling intervals
    /// (a running thread is sampled about every interval), is the kernel's fault code. perf records
    /// context switches without call chains (one on every switch of the machine costs more than the
    /// rest of the recording), so that sample stands for the stack the thread left the CPU with, as
    /// PerfView's thread-time view uses the switch's own stack.
    /// </summary>
    private bool LeftCpuInFault(int threadId, OffCpuStretch stretch)
    {
        if (stretch.LeftAs is not (RunState.Runnable or RunState.DiskWait)
            || Samples is not { } samples || double.IsNaN(samples.IntervalMSec) || !samples.TryGetThread(threadId, out var thread))
        {
            return false;
        }

        var (first, end) = thread.Range(stretch.SwitchedOutMSec - (1.5 * samples.IntervalMSec), stretch.SwitchedOutMSec + 1e-6);
        return end > first && thread.CategoryOf(end - 1, samples) == SampleCategory.PageFault;
    }

    /// <summary>
    /// Each traced thread's spans off the CPU (runnable, sleeping, disk wait), each marked when its
    /// stretch began inside a page fault (<see cref="LeftCpuInFault"/>): classified once for every
    /// scheduler cause (waiting for a CPU, off CPU, mid-fault), which split the same spans by it.
    /// </summary>
    public IReadOnlyList<(int Thread, (ThreadStateSpan Span, bool InFault)[] Spans)> OffCpu => _offCpu ??= ClassifyOffCpu();

    private (int Thread, (ThreadStateSpan Span, bool InFault)[] Spans)[] ClassifyOffCpu()
    {
        if (Scheduler is not { } scheduler)
        {
            return [];
        }

        var all = new List<(int, (ThreadStateSpan, bool)[])>();
        foreach (var thread in scheduler.Threads)
        {
            all.Add((thread, [.. OffCpuSpans(scheduler, thread).Select(s => (s.Span, LeftCpuInFault(thread, s.Stretch)))]));
        }

        return [.. all];
    }

    /// <summary>
    /// Each span of a thread off the CPU with the stretch it belongs to: from one switch-out (and the
    /// state the thread left in) to its next run.
    /// </summary>
    private static IEnumerable<(ThreadStateSpan Span, OffCpuStretch Stretch)> OffCpuSpans(SchedulerModel scheduler, int threadId)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        var spans = scheduler.SpansOf(threadId).ToArray();
        OffCpuStretch? stretch = null;
        var lastStop = double.NaN;
        foreach (var span in spans)
        {
            if (span.State == RunState.Running)
            {
                stretch = null;
            }
            else
            {
                if (stretch is null || span.StartMSec != lastStop)
                {
                    stretch = new OffCpuStretch(span.StartMSec, span.State);
                }

                yield return (span, stretch.Value);
            }

            lastStop = span.StopMSec;
        }
    }

    /// <summary>
    /// Each paired request's service (Start to Stop) on its thread, when requests carry their arrival:
    /// what queues a request behind an earlier one, and what a thread was not doing between requests.
    /// Shared: callers copy before sorting.
    /// </summary>
    public Dictionary<int, List<(double Start, double Stop)>> ServicesByThread => _services ??= Services();

    private Dictionary<int, List<(double Start, double Stop)>> Services()
    {
        var byThread = new Dictionary<int, List<(double Start, double Stop)>>();
        if (!Set.Requests.WithArrival)
        {
            return byThread;
        }

        var requests = Set.Requests.Requests;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (request.IsPaired)
            {
                Windows.Group(byThread, request.ThreadId).Add((request.StartMSec, request.StopMSec));
            }
        }

        return byThread;
    }

    /// <summary>Every GC pause, sorted.</summary>
    public (double Start, double Stop)[] GcPauses => _gcPauses ??= [.. Set.Gc.Pauses.Select(p => (p.StartMSec, p.StopMSec)).Order()];

    /// <summary>Every GC pause and runtime suspension, merged into disjoint windows sorted by start.</summary>
    public (double Start, double Stop)[] StoppedWindows => _stopped ??= Stopped();

    private (double Start, double Stop)[] Stopped()
    {
        var all = new List<(double Start, double Stop)>();
        foreach (var pause in Set.Gc.Pauses)
        {
            all.Add((pause.StartMSec, pause.StopMSec));
        }

        for (var i = 0; i < Set.Suspensions.Windows.Count; i++)
        {
            all.Add((Set.Suspensions.Windows[i].StartMSec, Set.Suspensions.Windows[i].StopMSec));
        }

        return Windows.Merge(all);
    }
}

/// <summary>One stretch of a thread off the CPU: when it left, and in which state (R preempted, S asleep, D held by the kernel).</summary>
internal readonly record struct OffCpuStretch(double SwitchedOutMSec, RunState LeftAs);
