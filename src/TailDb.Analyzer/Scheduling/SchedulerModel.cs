namespace TailDb.Analyzer.Scheduling;

/// <summary>
/// The scheduler's view of a recording, in the trace's relative milliseconds: each thread of the
/// traced process as spans of <see cref="RunState"/> (covering the recording from each thread's
/// first switch), who ran on each CPU, and the threads of the whole machine by id. One model for
/// every source that sees context switches (Linux perf's sched_switch/sched_wakeup; ETW's
/// CSwitch/ReadyThread would feed the same <see cref="SchedulerModelBuilder"/>).
/// </summary>
public sealed class SchedulerModel
{
    private readonly Dictionary<int, ThreadStateSpan[]> _spans;
    private readonly Dictionary<int, ThreadIdentity> _threads;

    internal SchedulerModel(
        int processId, Dictionary<int, ThreadStateSpan[]> spans, Dictionary<int, ThreadIdentity> threads, long switches, long wakeups, Dictionary<int, List<double>> majorFaults)
    {
        MajorFaults = majorFaults;
        ProcessId = processId;
        _spans = spans;
        _threads = threads;
        Switches = switches;
        Wakeups = wakeups;
    }

    public int ProcessId { get; }

    public long Switches { get; }

    public long Wakeups { get; }

    /// <summary>Threads seen running on a CPU whose switch to them was not recorded (<see cref="SchedulerModelBuilder.Current"/>).</summary>
    public long UnrecordedSwitchIns { get; init; }

    /// <summary>Major page faults of the traced process's threads, by thread, in time order.</summary>
    public IReadOnlyDictionary<int, List<double>> MajorFaults { get; }

    public IEnumerable<int> Threads => _spans.Keys;

    /// <summary>The spans of a thread of the traced process, sorted and disjoint (empty when it never switched).</summary>
    public ReadOnlySpan<ThreadStateSpan> SpansOf(int threadId) => _spans.TryGetValue(threadId, out var spans) ? spans : [];

    public ThreadIdentity Identify(int threadId) =>
        _threads.TryGetValue(threadId, out var identity) ? identity : new ThreadIdentity(0, threadId, threadId == 0 ? "idle" : "?");

    /// <summary>"stress-ng-cpu (pid 4242)", "another thread of this process (load-1)", "an interrupt or the kernel".</summary>
    public string Describe(int threadId)
    {
        if (threadId <= 0)
        {
            return "an interrupt or the kernel";
        }

        var who = Identify(threadId);
        return who.ProcessId == ProcessId
            ? $"another thread of this process ({who.Command})"
            : who.ProcessId > 0 ? $"{who.Command} (pid {who.ProcessId})" : $"thread {threadId} ({who.Command})";
    }

    /// <summary>
    /// Who a thread is, as a cause names it: a thread of the traced process by its own name; any
    /// other by its process ("csc (pid 4748)", named as its main thread is), so one busy process with
    /// many threads is one holder.
    /// </summary>
    public string DescribeHolder(int threadId)
    {
        var who = Identify(threadId);
        if (threadId <= 0 || who.ProcessId == ProcessId || who.ProcessId <= 0)
        {
            return Describe(threadId);
        }

        var main = _threads.TryGetValue(who.ProcessId, out var process) ? process.Command : who.Command;
        return $"{main} (pid {who.ProcessId})";
    }

    /// <summary>How long the thread spent in each state within [from, to).</summary>
    public void Overlap(int threadId, double from, double to, Span<double> byState)
    {
        var spans = SpansOf(threadId);
        for (var i = FirstEndingAfter(spans, from); i < spans.Length && spans[i].StartMSec < to; i++)
        {
            var overlap = Math.Min(spans[i].StopMSec, to) - Math.Max(spans[i].StartMSec, from);
            if (overlap > 0)
            {
                byState[(int)spans[i].State] += overlap;
            }
        }
    }

    /// <summary>The index of the first span whose stop is after <paramref name="time"/>.</summary>
    public static int FirstEndingAfter(ReadOnlySpan<ThreadStateSpan> spans, double time)
    {
        int lo = 0, hi = spans.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (spans[mid].StopMSec <= time)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }
}
