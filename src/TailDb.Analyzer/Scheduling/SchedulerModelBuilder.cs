namespace TailDb.Analyzer.Scheduling;

/// <summary>
/// Pairs context switches into thread states, the one place that runtime-independent fact lives:
/// a thread switched out with state R was preempted (runnable until it is switched in again); with
/// S it slept, with D the kernel held it (disk), each until a wake-up makes it runnable, and
/// runnable until it is switched in. A runnable thread waits in one CPU's queue: the CPU it was
/// preempted on, or the one its wake-up targeted. Whoever ran on that CPU meanwhile is what it
/// waited behind, so a runnable span is split by that CPU's occupants (a CPU-bound hog pinned
/// beside it is named for exactly its time, not outvoted by a busier process on the other CPU).
/// Where that CPU ran nothing (the thread was pulled to another), the thread that held the CPUs
/// longest is named. Feed events in time order.
/// <para>
/// Not every switch is in a recording. On this machine's kernel (Linux 6.18 in a Firecracker VM)
/// perf recorded half to two thirds fewer switches from the idle task than to it, with no lost
/// chunk and no out-of-order event reported (docs/sampling.md): a thread woken onto an idle CPU was
/// seen running (its samples, the wake-ups it issued, its next switch out) with no switch in and
/// often no wake-up. Taken as recorded, its sleep lasted until its next switch out, so a run of
/// 40 ms of page faults after a short sleep read as 36 ms asleep. So every event's current thread
/// is evidence (<see cref="Current"/>), and the switches are what it corrects.
/// </para>
/// </summary>
public sealed class SchedulerModelBuilder
{
    private readonly int _processId;
    // Each span with the CPU a runnable thread was queued on (-1: not known).
    private readonly Dictionary<int, List<(ThreadStateSpan Span, int Cpu)>> _spans = [];
    private readonly Dictionary<int, (double Since, RunState State, int Cpu)> _open = [];
    private readonly Dictionary<int, ThreadIdentity> _threads = [];

    // Per CPU: who is on it since when and when an event last named it, and the machine-wide run
    // history (for naming who a runnable thread waited behind).
    private readonly Dictionary<int, (int Thread, double Since, double Seen)> _onCpu = [];
    private readonly List<(double Start, double Stop, int Thread)> _runs = [];
    private readonly Dictionary<int, List<(double Start, double Stop, int Thread)>> _runsByCpu = [];
    private readonly Dictionary<int, List<double>> _majorFaults = [];

    private long _switches;
    private long _wakeups;
    private long _unrecordedSwitchIns;

    // The CPU sampler's interval (NaN: no sampler): a thread that runs is sampled at least this often.
    private readonly double _sampleIntervalMSec;

    /// <param name="sampleIntervalMSec">The interval of the CPU samples fed with the switches, if any: it bounds an unrecorded switch in (<see cref="Current"/>).</param>
    public SchedulerModelBuilder(int processId, double sampleIntervalMSec = double.NaN)
    {
        _processId = processId;
        _sampleIntervalMSec = sampleIntervalMSec;
    }

    /// <summary>Any event names its thread and process: the only place a thread's process is learnt.</summary>
    public void Saw(int processId, int threadId, string command)
    {
        // Threads rename themselves after they start (the runtime's "load-0", ".NET TP Worker"): the latest name wins.
        if (threadId > 0 && (!_threads.TryGetValue(threadId, out var known) || known.ProcessId != processId || !string.Equals(known.Command, command, StringComparison.Ordinal)))
        {
            _threads[threadId] = new ThreadIdentity(processId, threadId, command);
        }
    }

    /// <param name="previousState">The kernel's letter for the thread leaving: R (preempted; "R+" too), S, D, and others (treated as sleep).</param>
    public void Switch(double timeMSec, int cpu, int previousThread, char previousState, int nextThread, string nextCommand)
    {
        _switches++;

        // The thread leaving was current: if its switch in was not recorded, that is put right first.
        Current(timeMSec, cpu, previousThread);
        if (_onCpu.TryGetValue(cpu, out var on) && on.Thread > 0)
        {
            Ran(cpu, on.Since, timeMSec, on.Thread);
        }

        _onCpu[cpu] = (nextThread, timeMSec, timeMSec);
        if (nextThread > 0 && !_threads.ContainsKey(nextThread))
        {
            // Its process is learnt from its own events; keep the name meanwhile.
            _threads[nextThread] = new ThreadIdentity(0, nextThread, nextCommand);
        }

        if (Traced(previousThread))
        {
            Close(previousThread, timeMSec);
            var state = previousState switch
            {
                'R' => RunState.Runnable,
                'D' => RunState.DiskWait,
                _ => RunState.Sleeping,
            };
            _open[previousThread] = (timeMSec, state, state == RunState.Runnable ? cpu : -1);
        }

        if (Traced(nextThread))
        {
            Close(nextThread, timeMSec);
            _open[nextThread] = (timeMSec, RunState.Running, cpu);
        }
    }

    /// <summary>
    /// <paramref name="thread"/> was current on <paramref name="cpu"/> at <paramref name="timeMSec"/>:
    /// what any event says of the thread it names (a sample's, a wake-up's waker, a switch's
    /// outgoing thread). When the CPU's recorded occupant is another thread, the switch that put
    /// this one on was not recorded: it happened after the CPU's last event that named another
    /// thread, and within one sampling interval of now (a running thread is sampled every
    /// interval, and none of its samples came sooner; an idle CPU is not sampled, so its last
    /// event can be the switch to idle a long sleep ago). The occupant's run ends there; a traced
    /// thread's state as recorded (asleep, runnable) holds until then, is
    /// <see cref="RunState.Unrecorded"/> from there to now, and Running from now.
    /// </summary>
    public void Current(double timeMSec, int cpu, int thread)
    {
        if (!_onCpu.TryGetValue(cpu, out var on))
        {
            return;
        }

        if (on.Thread == thread)
        {
            _onCpu[cpu] = on with { Seen = timeMSec };
            return;
        }

        _unrecordedSwitchIns++;
        var from = on.Seen;
        if (double.IsFinite(_sampleIntervalMSec))
        {
            from = Math.Max(from, timeMSec - _sampleIntervalMSec);
        }

        from = Math.Min(timeMSec, from);
        if (on.Thread > 0)
        {
            Ran(cpu, on.Since, from, on.Thread);
        }

        _onCpu[cpu] = (thread, timeMSec, timeMSec);
        if (!Traced(thread))
        {
            return;
        }

        if (_open.TryGetValue(thread, out var open))
        {
            if (open.State == RunState.Running)
            {
                // Its switch out of another CPU was not recorded either: it runs here now.
                _open[thread] = open with { Cpu = cpu };
                return;
            }

            var until = Math.Max(open.Since, from);
            Close(thread, until);
            _open[thread] = (until, RunState.Unrecorded, -1);
            Close(thread, timeMSec);
        }

        _open[thread] = (timeMSec, RunState.Running, cpu);
    }

    /// <summary>
    /// A sleeping thread became runnable, queued on <paramref name="targetCpu"/> (-1: not known);
    /// <paramref name="wakerThread"/> is the thread on the CPU that woke it (0: an interrupt).
    /// </summary>
    public void Wakeup(double timeMSec, int thread, int wakerThread, int targetCpu = -1)
    {
        _wakeups++;
        if (!Traced(thread) || !_open.TryGetValue(thread, out var open) || open.State is not (RunState.Sleeping or RunState.DiskWait))
        {
            return;
        }

        Close(thread, timeMSec, wakerThread);
        _open[thread] = (timeMSec, RunState.Runnable, targetCpu);
    }

    /// <summary>A major page fault on <paramref name="thread"/> (of the traced process).</summary>
    public void MajorFault(double timeMSec, int thread)
    {
        if (Traced(thread))
        {
            Intervals.Windows.Group(_majorFaults, thread).Add(timeMSec);
        }
    }

    public SchedulerModel Build(double endMSec)
    {
        foreach (var thread in _open.Keys.ToList())
        {
            Close(thread, endMSec);
        }

        foreach (var (cpu, on) in _onCpu)
        {
            if (on.Thread > 0)
            {
                Ran(cpu, on.Since, endMSec, on.Thread);
            }
        }

        _runs.Sort();
        foreach (var runs in _runsByCpu.Values)
        {
            runs.Sort();
        }

        var spans = new Dictionary<int, ThreadStateSpan[]>();
        var split = new List<ThreadStateSpan>();
        foreach (var (thread, list) in _spans)
        {
            var array = new List<ThreadStateSpan>(list.Count);
            foreach (var (span, cpu) in list)
            {
                if (span.State != RunState.Runnable)
                {
                    array.Add(span);
                    continue;
                }

                split.Clear();
                SplitByOccupants(span, cpu, thread, split);
                array.AddRange(split);
            }

            spans.Add(thread, [.. array]);
        }

        foreach (var times in _majorFaults.Values)
        {
            times.Sort();
        }

        return new SchedulerModel(_processId, spans, _threads, _switches, _wakeups, _majorFaults) { UnrecordedSwitchIns = _unrecordedSwitchIns };
    }

    private bool Traced(int thread) =>
        thread > 0 && _threads.TryGetValue(thread, out var identity) && identity.ProcessId == _processId;

    private void Close(int thread, double timeMSec, int waker = 0)
    {
        if (!_open.Remove(thread, out var open) || !(timeMSec > open.Since))
        {
            return;
        }

        if (!_spans.TryGetValue(thread, out var list))
        {
            list = [];
            _spans.Add(thread, list);
        }

        list.Add((new ThreadStateSpan(open.Since, timeMSec, open.State, open.State is RunState.Sleeping or RunState.DiskWait ? waker : 0), open.Cpu));
    }

    private void Ran(int cpu, double start, double stop, int thread)
    {
        _runs.Add((start, stop, thread));
        Intervals.Windows.Group(_runsByCpu, cpu).Add((start, stop, thread));
    }

    /// <summary>
    /// A runnable span as the occupants of the CPU it was queued on, in order (adjacent pieces with
    /// one holder merged; stretches that CPU was idle are the kernel's); where that CPU is unknown or
    /// never ran anyone in the span, the longest holder of any CPU.
    /// </summary>
    private void SplitByOccupants(ThreadStateSpan span, int cpu, int waiting, List<ThreadStateSpan> into)
    {
        var cursor = span.StartMSec;
        if (cpu >= 0 && _runsByCpu.TryGetValue(cpu, out var runs))
        {
            for (var i = FirstEndingAfter(runs, span.StartMSec); i < runs.Count && runs[i].Start < span.StopMSec; i++)
            {
                var (start, stop, thread) = runs[i];
                if (thread == waiting)
                {
                    continue;
                }

                start = Math.Max(start, span.StartMSec);
                stop = Math.Min(stop, span.StopMSec);
                if (start > cursor)
                {
                    // Its CPU was idle: the wait was the kernel's (waking the CPU), not another thread's.
                    Add(into, span with { StartMSec = cursor, StopMSec = start, Holder = 0 });
                }

                if (stop > start)
                {
                    Add(into, span with { StartMSec = start, StopMSec = stop, Holder = thread });
                    cursor = Math.Max(cursor, stop);
                }
            }
        }

        if (span.StopMSec > cursor)
        {
            Add(into, span with { StartMSec = cursor, StopMSec = span.StopMSec, Holder = cpu >= 0 && cursor > span.StartMSec ? 0 : Holder(cursor, span.StopMSec, waiting) });
        }

        static void Add(List<ThreadStateSpan> into, ThreadStateSpan piece)
        {
            if (into.Count > 0 && into[^1].Holder == piece.Holder && into[^1].StopMSec >= piece.StartMSec)
            {
                into[^1] = into[^1] with { StopMSec = piece.StopMSec };
            }
            else
            {
                into.Add(piece);
            }
        }
    }

    /// <summary>The index of the first of one CPU's runs (sorted, disjoint) that stops after <paramref name="time"/>.</summary>
    private static int FirstEndingAfter(List<(double Start, double Stop, int Thread)> runs, double time)
    {
        int lo = 0, hi = runs.Count;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (runs[mid].Stop <= time)
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

    /// <summary>The thread (not <paramref name="waiting"/>) that was on the CPUs longest within [from, to); 0 when none.</summary>
    private int Holder(double from, double to, int waiting)
    {
        // Runs are sorted by start; any run overlapping [from, to) starts before to. Runs are short,
        // so scanning back from the first run starting at or after `to` stops quickly.
        var end = LowerBound(to);
        var time = new Dictionary<int, double>();
        for (var i = end - 1; i >= 0 && (from - _runs[i].Start) < 1000; i--)
        {
            var (start, stop, thread) = _runs[i];
            var overlap = Math.Min(stop, to) - Math.Max(start, from);
            if (overlap > 0 && thread != waiting)
            {
                time[thread] = time.GetValueOrDefault(thread) + overlap;
            }
        }

        var best = 0;
        var most = 0.0;
        foreach (var (thread, spent) in time)
        {
            if (spent > most || (spent == most && thread < best))
            {
                (best, most) = (thread, spent);
            }
        }

        return best;
    }

    private int LowerBound(double time)
    {
        int lo = 0, hi = _runs.Count;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (_runs[mid].Start < time)
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
