namespace TailDb.Analyzer.Scheduling;

/// <summary>
/// Pairs context switches into thread states, the one place that runtime-independent fact lives:
/// a thread switched out with state R was preempted (runnable until it is switched in again); with
/// S it slept, with D the kernel held it (disk), each until a wake-up makes it runnable, and
/// runnable until it is switched in. While a thread is runnable, whoever ran on the CPUs is what it
/// waited behind: the span names the thread that held CPUs longest in it. Feed events in time order.
/// </summary>
public sealed class SchedulerModelBuilder
{
    private readonly int _processId;
    private readonly Dictionary<int, List<ThreadStateSpan>> _spans = [];
    private readonly Dictionary<int, (double Since, RunState State, int Waker)> _open = [];
    private readonly Dictionary<int, ThreadIdentity> _threads = [];

    // Per CPU: who is on it since when, and the machine-wide run history (for naming who a runnable thread waited behind).
    private readonly Dictionary<int, (int Thread, double Since)> _onCpu = [];
    private readonly List<(double Start, double Stop, int Thread)> _runs = [];
    private readonly Dictionary<int, List<double>> _majorFaults = [];
    private long _switches;
    private long _wakeups;

    public SchedulerModelBuilder(int processId) => _processId = processId;

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
        if (_onCpu.TryGetValue(cpu, out var on) && on.Thread > 0)
        {
            _runs.Add((on.Since, timeMSec, on.Thread));
        }

        _onCpu[cpu] = (nextThread, timeMSec);
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
            _open[previousThread] = (timeMSec, state, 0);
        }

        if (Traced(nextThread))
        {
            Close(nextThread, timeMSec);
            _open[nextThread] = (timeMSec, RunState.Running, 0);
        }
    }

    /// <summary>A sleeping thread became runnable; <paramref name="wakerThread"/> is the thread on the CPU that woke it (0: an interrupt).</summary>
    public void Wakeup(double timeMSec, int thread, int wakerThread)
    {
        _wakeups++;
        if (!Traced(thread) || !_open.TryGetValue(thread, out var open) || open.State is not (RunState.Sleeping or RunState.DiskWait))
        {
            return;
        }

        Close(thread, timeMSec, wakerThread);
        _open[thread] = (timeMSec, RunState.Runnable, 0);
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
                _runs.Add((on.Since, endMSec, on.Thread));
            }
        }

        _runs.Sort();
        var spans = new Dictionary<int, ThreadStateSpan[]>();
        foreach (var (thread, list) in _spans)
        {
            var array = list.ToArray();
            for (var i = 0; i < array.Length; i++)
            {
                if (array[i].State == RunState.Runnable)
                {
                    array[i] = array[i] with { Holder = Holder(array[i].StartMSec, array[i].StopMSec, thread) };
                }
            }

            spans.Add(thread, array);
        }

        foreach (var times in _majorFaults.Values)
        {
            times.Sort();
        }

        return new SchedulerModel(_processId, spans, _threads, _switches, _wakeups, _majorFaults);
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

        list.Add(new ThreadStateSpan(open.Since, timeMSec, open.State, open.State is RunState.Sleeping or RunState.DiskWait ? waker : 0));
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
