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

    public ComputerSet Set { get; } = set ?? throw new ArgumentNullException(nameof(set));

    public SampleComputer? Samples { get; } = samples;

    /// <summary>The sample causes' one pass over a window's samples; null without samples or a measured interval.</summary>
    public SampleClassifier? Classifier { get; } = SampleClassifier.For(set, samples);

    /// <summary>
    /// Whether a thread that left the CPU at <paramref name="switchedOutMSec"/> left it inside a page
    /// fault: its last sample before then, within two sampling intervals, is the kernel's fault code.
    /// perf records context switches without call chains (a chain on every switch of the machine
    /// costs more than the rest of the recording), so the last sample stands for the stack the
    /// thread left the CPU with, as PerfView's thread-time view uses the switch's own stack.
    /// </summary>
    public bool LeftCpuInFault(int threadId, double switchedOutMSec)
    {
        if (Samples is not { } samples || double.IsNaN(samples.IntervalMSec) || !samples.TryGetThread(threadId, out var thread))
        {
            return false;
        }

        var (first, end) = thread.Range(switchedOutMSec - (2 * samples.IntervalMSec), switchedOutMSec + 1e-6);
        return end > first && samples.Categories[thread.StackIds[end - 1]] == SampleCategory.PageFault;
    }

    /// <summary>
    /// Each stretch of a thread off the CPU (its runnable, sleeping and disk-wait spans from one
    /// switch-out to the next run), each span with the time the stretch began.
    /// </summary>
    public static IEnumerable<(ThreadStateSpan Span, double SwitchedOut)> OffCpuSpans(SchedulerModel scheduler, int threadId)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        var spans = scheduler.SpansOf(threadId).ToArray();
        var since = double.NaN;
        var lastStop = double.NaN;
        foreach (var span in spans)
        {
            if (span.State == RunState.Running)
            {
                since = double.NaN;
            }
            else
            {
                if (double.IsNaN(since) || span.StartMSec != lastStop)
                {
                    since = span.StartMSec;
                }

                yield return (span, since);
            }

            lastStop = span.StopMSec;
        }
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
