using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Measures, for one part of a request (its queue or its service), how much of it each cause
/// covered: process-wide windows (GC pauses, runtime suspensions) count for every request they
/// overlap; contention, JIT, exceptions, samples and earlier requests only on the request's own
/// thread; nested activities (FileRead, Fsync) only inside the service of the request that owns them.
/// </summary>
internal sealed class Attributor
{
    private readonly List<CauseDefinition> _causes = [];
    private readonly List<(int Cause, WindowIndex Index)> _processWide = [];
    /// <summary>Per-thread windows; <c>Only</c> restricts a cause to one part of a request.</summary>
    private readonly List<(int Cause, Dictionary<int, WindowIndex> ByThread, RequestPart? Only)> _perThread = [];
    private readonly List<(int Cause, PointIndex Index)> _processPoints = [];
    private readonly List<(int Cause, Dictionary<int, PointIndex> ByThread)> _threadPoints = [];
    private readonly ComputerSet _set;
    private readonly SampleComputer? _samples;
    private readonly int[] _sampleCause;
    // GC pauses each stretched by one sampling interval: a thread parked at a safe point in there was stopped by the GC.
    private WindowIndex? _gcParking;
    // Each thread's request services, when requests carry their arrival: a sample in a request's queue
    // that falls inside one of them was taken while the thread served the request in front.
    private Dictionary<int, WindowIndex> _servicesByThread = [];
    private int[] _causeOfActivity = [];
    private int[] _nestedIndex = [];
    private int[] _nestedParents = [];

    public Attributor(ComputerSet set, SampleComputer? samples)
    {
        ArgumentNullException.ThrowIfNull(set);
        _set = set;
        _samples = samples;
        _sampleCause = new int[Enum.GetValues<SampleCategory>().Length];
        Array.Fill(_sampleCause, -1);

        AddGcPauses();
        AddSuspensions();
        AddUpkeep();
        AddPerThread("lock contention (ContentionStart/Stop)", CauseKind.Contention, Windows(set.Contention.Windows), only: null);
        AddPerThread("JIT compilation", CauseKind.Jit, Windows(set.Jit.Windows), only: null);
        AddStarvation();
        AddExceptions();
        AddNestedActivities();
        AddSamples();
        AddEarlierRequests();
    }

    public IReadOnlyList<CauseDefinition> Causes => _causes;

    /// <summary>Writes each cause's overlap with one part of the request into <paramref name="values"/> (cleared first).</summary>
    public void Measure(in RequestRecord request, int requestIndex, RequestPart part, Span<double> values)
    {
        values.Clear();
        var (from, to) = part == RequestPart.Queue ? (request.ArrivalMSec, request.StartMSec) : (request.StartMSec, request.StopMSec);
        if (!(to > from))
        {
            return;
        }

        foreach (var (cause, index) in _processWide)
        {
            values[cause] = index.Overlap(from, to);
        }

        foreach (var (cause, byThread, only) in _perThread)
        {
            if ((only is null || only == part) && byThread.TryGetValue(request.ThreadId, out var index))
            {
                values[cause] = index.Overlap(from, to);
            }
        }

        foreach (var (cause, index) in _processPoints)
        {
            values[cause] = index.Count(from, to);
        }

        foreach (var (cause, byThread) in _threadPoints)
        {
            if (byThread.TryGetValue(request.ThreadId, out var index))
            {
                values[cause] = index.Count(from, to);
            }
        }

        if (part == RequestPart.Service)
        {
            MeasureNested(requestIndex, from, to, values);
        }

        MeasureSamples(request.ThreadId, from, to, values);
    }

    /// <summary>Both parts added: the whole response window.</summary>
    public void MeasureResponse(in RequestRecord request, int requestIndex, Span<double> values, Span<double> scratch)
    {
        Measure(request, requestIndex, RequestPart.Queue, values);
        Measure(request, requestIndex, RequestPart.Service, scratch);
        for (var c = 0; c < values.Length; c++)
        {
            values[c] += scratch[c];
        }
    }

    private void AddGcPauses()
    {
        for (var generation = -1; generation <= 2; generation++)
        {
            var windows = new List<(double, double)>();
            foreach (var pause in _set.Gc.Pauses)
            {
                if (pause.Generation == generation)
                {
                    windows.Add((pause.StartMSec, pause.StopMSec));
                }
            }

            if (windows.Count > 0)
            {
                var name = generation < 0 ? "GC pauses (generation unknown)" : $"gen{generation} GC pauses";
                _processWide.Add((Add(name, CauseScope.Process, CauseUnit.Milliseconds, CauseKind.GcPause), new WindowIndex(windows)));
            }
        }
    }

    /// <summary>
    /// The store's compaction and cache eviction, wherever they ran: process-wide, because a
    /// compaction holding the writer lock or saturating the disk slows requests on every thread.
    /// Less the time the runtime had every thread stopped (a GC pause, any suspension, the sample
    /// profiler's ticks): upkeep stood still then too, and the requests waited on the suspension. A
    /// starved upkeep thread that held up a sampler tick for 80 ms was "running" all that while,
    /// and would otherwise be blamed for what the tick did.
    /// </summary>
    private void AddUpkeep()
    {
        var stopped = StoppedWindows();
        var ignored = new List<(double, double)>();
        foreach (var kind in Enum.GetValues<UpkeepKind>())
        {
            var windows = new List<(double, double)>();
            foreach (var window in _set.Upkeep.Windows)
            {
                if (window.Tag == (int)kind)
                {
                    SplitAround(stopped, window.StartMSec, window.StopMSec, windows, ignored);
                }
            }

            if (windows.Count > 0)
            {
                var name = kind == UpkeepKind.Compaction ? "store compaction running (upkeep)" : "store cache eviction running (upkeep)";
                _processWide.Add((Add(name, CauseScope.Process, CauseUnit.Milliseconds, CauseKind.StoreUpkeep), new WindowIndex(windows)));
            }
        }
    }

    /// <summary>
    /// Non-GC suspensions by reason. SuspendOther is mostly the sample profiler's ticks when the trace
    /// has samples: the measurement's own cost, kept apart from the app's causes. A tick's wait for
    /// every thread to reach a safe point, past the ticks' usual wait, is reported on a line of its
    /// own: a thread was slow to stop (non-interruptible work, or not run by the OS) and the tick
    /// stalled everyone meanwhile. Still the measurement's cost (without the sampler no one would have
    /// waited), but it names a thread that would hold up a GC's suspension the same way.
    /// </summary>
    private void AddSuspensions()
    {
        var byReason = new SortedDictionary<int, List<(double Start, double Reached, double Stop)>>();
        var windows = _set.Suspensions.Windows;
        for (var i = 0; i < windows.Count; i++)
        {
            var window = windows[i];
            if (!byReason.TryGetValue(window.Tag, out var list))
            {
                list = [];
                byReason.Add(window.Tag, list);
            }

            list.Add((window.StartMSec, _set.Suspensions.ReachedMSec[i], window.StopMSec));
        }

        var safePointWaits = new List<(double, double)>();
        foreach (var (reason, list) in byReason)
        {
            var suspendReason = (GCSuspendEEReason)reason;
            var sampler = suspendReason == GCSuspendEEReason.SuspendOther && _samples is not null;
            var name = sampler
                ? "sample profiler suspensions (SuspendOther while sampling: measurement overhead)"
                : SuspensionComputer.Describe(suspendReason);
            var kind = sampler ? CauseKind.SamplerSuspension : CauseKind.RuntimeSuspension;
            var own = sampler ? SplitSafePointWaits(list, safePointWaits) : [.. list.Select(w => (w.Start, w.Stop))];
            _processWide.Add((Add(name, CauseScope.Process, CauseUnit.Milliseconds, kind), new WindowIndex(own)));
        }

        if (safePointWaits.Count > 0)
        {
            safePointWaits.Sort();
            SafePointHolders = Holders(byReason.GetValueOrDefault((int)GCSuspendEEReason.SuspendOther) ?? [], safePointWaits);
            _processWide.Add((Add(SafePointWaitCause, CauseScope.Process, CauseUnit.Milliseconds, CauseKind.SafePointWait), new WindowIndex(safePointWaits)));
        }
    }

    /// <summary>
    /// What the threads not serving requests were running in the ticks that waited past their usual
    /// wait for a safe point, by leaf frame, most often first: who held the process up.
    /// </summary>
    public IReadOnlyList<(string Frame, int Ticks)> SafePointHolders { get; private set; } = [];

    /// <summary>Ticks held up by at least this much name their holders (shorter waits are scheduling noise).</summary>
    private const double HeldTickMSec = 1.0;

    private List<(string Frame, int Ticks)> Holders(List<(double Start, double Reached, double Stop)> ticks, List<(double Start, double Stop)> waits)
    {
        if (_samples is null)
        {
            return [];
        }

        var serving = new HashSet<int>();
        for (var i = 0; i < _set.Requests.Requests.Count; i++)
        {
            serving.Add(_set.Requests.Requests[i].ThreadId);
        }

        var held = new WindowIndex(waits);
        var counts = new Dictionary<string, int>();
        foreach (var (start, reached, stop) in ticks)
        {
            if (held.Overlap(start, reached) < HeldTickMSec)
            {
                continue;
            }

            // The sampler walks the stacks once every thread has stopped: the tick's samples sit in [reached, stop].
            foreach (var thread in _samples.Threads)
            {
                var (first, end) = thread.Range(reached, stop + 1e-3);
                for (var i = first; i < end; i++)
                {
                    var stack = thread.StackIds[i];
                    if (!serving.Contains(thread.ThreadId) && CanHoldASuspension(_samples.Categories[stack], _samples.LeafFrames[stack]))
                    {
                        counts[_samples.LeafFrames[stack]] = counts.GetValueOrDefault(_samples.LeafFrames[stack]) + 1;
                    }
                }
            }
        }

        return [.. counts.OrderByDescending(c => c.Value).ThenBy(c => c.Key, StringComparer.Ordinal).Select(c => (c.Key, c.Value))];
    }

    /// <summary>
    /// A thread blocked, parked or inside a P/Invoke (Interop+...) runs in preemptive mode: a
    /// suspension never waits for it.
    /// </summary>
    private static bool CanHoldASuspension(SampleCategory category, string leaf) =>
        category is not (SampleCategory.Waiting or SampleCategory.ThreadPool or SampleCategory.Contention or SampleCategory.SafePoint)
        && !leaf.StartsWith("Interop+", StringComparison.Ordinal);

    internal const string SafePointWaitCause = "sample profiler ticks held up waiting for a thread to reach a safe point (measurement overhead)";

    /// <summary>
    /// The sampler's ticks minus the part of each wait for a safe point beyond the ticks' median wait;
    /// that part goes to <paramref name="waits"/>. Wherever a GC pause covers a tick (a tick that
    /// waits for a GC to finish), the time is the GC's, already counted as its pause, and neither.
    /// </summary>
    private List<(double, double)> SplitSafePointWaits(List<(double Start, double Reached, double Stop)> ticks, List<(double, double)> waits)
    {
        var reaching = ticks.Select(t => t.Reached - t.Start).Order().ToArray();
        var usual = reaching[reaching.Length / 2];
        var gcs = _set.Gc.Pauses.Select(p => (p.StartMSec, p.StopMSec)).Order().ToArray();
        var own = new List<(double, double)>(ticks.Count);
        var covered = new List<(double, double)>();
        foreach (var (start, reached, stop) in ticks)
        {
            var held = Math.Min(start + usual, reached);
            SplitAround(gcs, start, held, own, covered);
            SplitAround(gcs, held, reached, waits, covered);
            SplitAround(gcs, reached, stop, own, covered);
        }

        return own;
    }

    /// <summary>[from, to) minus the sorted <paramref name="gcs"/> into <paramref name="outside"/>; the covered parts into <paramref name="covered"/>.</summary>
    internal static void SplitAround((double Start, double Stop)[] gcs, double from, double to, List<(double, double)> outside, List<(double, double)> covered)
    {
        var at = from;
        var i = Array.BinarySearch(gcs, (from, double.NegativeInfinity));
        for (i = Math.Max(0, (i < 0 ? ~i : i) - 1); i < gcs.Length && gcs[i].Start < to && at < to; i++)
        {
            var (start, stop) = (Math.Max(gcs[i].Start, at), Math.Min(gcs[i].Stop, to));
            if (stop <= start)
            {
                continue;
            }

            if (start > at)
            {
                outside.Add((at, start));
            }

            covered.Add((start, stop));
            at = stop;
        }

        if (to > at)
        {
            outside.Add((at, to));
        }
    }

    /// <summary>Every GC pause and runtime suspension, merged into disjoint windows sorted by start.</summary>
    private (double Start, double Stop)[] StoppedWindows()
    {
        var all = new List<(double Start, double Stop)>();
        foreach (var pause in _set.Gc.Pauses)
        {
            all.Add((pause.StartMSec, pause.StopMSec));
        }

        for (var i = 0; i < _set.Suspensions.Windows.Count; i++)
        {
            all.Add((_set.Suspensions.Windows[i].StartMSec, _set.Suspensions.Windows[i].StopMSec));
        }

        all.Sort();
        var merged = new List<(double Start, double Stop)>(all.Count);
        foreach (var (start, stop) in all)
        {
            if (merged.Count > 0 && start <= merged[^1].Stop)
            {
                merged[^1] = (merged[^1].Start, Math.Max(merged[^1].Stop, stop));
            }
            else
            {
                merged.Add((start, stop));
            }
        }

        return [.. merged];
    }

    private void AddStarvation()
    {
        if (_set.ThreadPool.Starvation.Count == 0)
        {
            return;
        }

        var times = new double[_set.ThreadPool.Starvation.Count];
        for (var i = 0; i < times.Length; i++)
        {
            times[i] = _set.ThreadPool.Starvation[i].TimeMSec;
        }

        Array.Sort(times);
        _processPoints.Add((Add("thread-pool starvation signals", CauseScope.Process, CauseUnit.Events, CauseKind.ThreadPoolStarvation), new PointIndex(times)));
    }

    private void AddExceptions()
    {
        if (_set.Exceptions.Thrown.Count == 0)
        {
            return;
        }

        var byThread = GroupByThread(_set.Exceptions.Thrown.Count, i => (_set.Exceptions.Thrown[i].ThreadId, _set.Exceptions.Thrown[i].TimeMSec));
        var index = new Dictionary<int, PointIndex>();
        foreach (var (thread, list) in byThread)
        {
            list.Sort();
            index.Add(thread, new PointIndex([.. list]));
        }

        _threadPoints.Add((Add("exceptions thrown", CauseScope.Thread, CauseUnit.Events, CauseKind.Exceptions), index));
    }

    /// <summary>
    /// Nested activities (FileRead, Fsync), grouped by the request that owns them: two int arrays
    /// sorted by parent, pointing into the computer's own storage (millions of FileReads are not copied).
    /// </summary>
    private void AddNestedActivities()
    {
        var activities = _set.Requests.Activities;
        var nested = _set.Requests.Nested;
        _causeOfActivity = new int[activities.Count];
        Array.Fill(_causeOfActivity, -1);
        var owned = 0;
        for (var i = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired)
            {
                owned++;
                if (_causeOfActivity[record.Activity] < 0)
                {
                    _causeOfActivity[record.Activity] = Add(
                        $"{activities[record.Activity].Name} (nested activity)", CauseScope.Request, CauseUnit.Milliseconds, CauseKind.NestedActivity);
                }
            }
        }

        _nestedParents = new int[owned];
        _nestedIndex = new int[owned];
        for (int i = 0, at = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired)
            {
                _nestedParents[at] = record.Parent;
                _nestedIndex[at++] = i;
            }
        }

        Array.Sort(_nestedParents, _nestedIndex);
    }

    private void AddSamples()
    {
        if (_samples is null || !double.IsFinite(_samples.IntervalMSec))
        {
            return;
        }

        foreach (var category in Enum.GetValues<SampleCategory>())
        {
            if (category == SampleCategory.SafePoint)
            {
                continue; // Decided per sample, by time: see ParkedCause.
            }

            var kind = category == SampleCategory.Tracing ? CauseKind.TracingSamples : CauseKind.Samples;
            _sampleCause[(int)category] = Add($"samples: {SampleComputer.CategoryName(category)}", CauseScope.Thread, CauseUnit.Milliseconds, kind);
        }

        // The GC's own stop-the-world ends before the sampler's next tick can start: a thread still
        // parked then has not run since the GC released it, so one interval past a pause is the GC's too.
        _gcParking = new WindowIndex([.. _set.Gc.Pauses.Select(p => (p.StartMSec, p.StopMSec + _samples.IntervalMSec))]);
    }

    /// <summary>
    /// A sample parked at a safe point counts as the GC's inside (or one interval after) a GC pause.
    /// Anywhere else the sample profiler's own suspension stopped the thread: that time is already
    /// the sampler suspensions' line (measurement overhead), so the sample counts nowhere (-1).
    /// </summary>
    private int ParkedCause(double sampleMSec) =>
        _gcParking is { } gc && gc.Overlap(sampleMSec - 1e-6, sampleMSec + 1e-6) > 0 ? _sampleCause[(int)SampleCategory.Gc] : -1;

    /// <summary>
    /// When requests carry their arrival, a request that arrived while an earlier request was still
    /// being served on its thread waited for it: that wait is a cause of its own, in the queue part.
    /// </summary>
    private void AddEarlierRequests()
    {
        if (!_set.Requests.WithArrival)
        {
            return;
        }

        var requests = _set.Requests.Requests;
        var byThread = new Dictionary<int, List<(double, double)>>();
        for (var i = 0; i < requests.Count; i++)
        {
            ref var request = ref requests[i];
            if (request.IsPaired)
            {
                Group(byThread, request.ThreadId).Add((request.StartMSec, request.StopMSec));
            }
        }

        // Queue part only: a request's own service is in the same index.
        AddPerThread("earlier requests on the same thread (queued behind them)", CauseKind.EarlierRequests, byThread, only: RequestPart.Queue);
        if (byThread.Count > 0)
        {
            _servicesByThread = _perThread[^1].ByThread;
        }
    }

    /// <summary>
    /// Whether the cause <paramref name="name"/> of <paramref name="kind"/> shows a thread held: it is measured by events, or it is
    /// samples of a stopped thread (waiting, a lock, file I/O). Samples of a running thread do not:
    /// a thread the OS preempted shows its app code tick after tick.
    /// </summary>
    public bool ShowsAThreadHeld(CauseKind kind, string name)
    {
        if (kind is not (CauseKind.Samples or CauseKind.TracingSamples))
        {
            return true;
        }

        foreach (var category in Enum.GetValues<SampleCategory>())
        {
            var slot = _sampleCause[(int)category];
            if (slot >= 0 && !SampleComputer.IsRunning(category) && _causes[slot].Name == name)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The slot <see cref="CountSamples"/> counts samples that stand for no cause in (the sampler's own tick).</summary>
    public int NoCauseSlot => _causes.Count;

    /// <summary>
    /// Counts one part's samples by the cause each stands for (<see cref="NoCauseSlot"/> for none) and
    /// by the thread's situation at that moment (<see cref="SampleSituation"/>): serving a request (the
    /// request's own service, or in its queue the service of a request in front) or not, and running
    /// code or stopped (blocked, waiting, parked). <paramref name="counts"/> is
    /// <see cref="SampleSituations.Count"/> blocks of <see cref="NoCauseSlot"/> + 1; added to, not cleared.
    /// </summary>
    public void CountSamples(in RequestRecord request, RequestPart part, Span<int> counts)
    {
        var (from, to) = part == RequestPart.Queue ? (request.ArrivalMSec, request.StartMSec) : (request.StartMSec, request.StopMSec);
        if (_samples is null || _sampleCause[0] < 0 || !(to > from) || !_samples.TryGetThread(request.ThreadId, out var samples))
        {
            return;
        }

        var slots = NoCauseSlot + 1;
        _servicesByThread.TryGetValue(request.ThreadId, out var services);
        var (first, end) = samples.Range(from, to);
        for (var i = first; i < end; i++)
        {
            var time = samples.Times[i];
            var category = _samples.Categories[samples.StackIds[i]];
            var cause = category == SampleCategory.SafePoint ? ParkedCause(time) : _sampleCause[(int)category];
            var serving = part == RequestPart.Service || (services is not null && services.Overlap(time - 1e-6, time + 1e-6) > 0);
            var situation = SampleSituations.Of(serving, SampleComputer.IsRunning(category));
            counts[((int)situation * slots) + (cause >= 0 ? cause : NoCauseSlot)]++;
        }
    }

    /// <summary>The sampling interval a sample stands for (NaN without samples).</summary>
    public double SampleIntervalMSec => _samples?.IntervalMSec ?? double.NaN;

    private void AddPerThread(string name, CauseKind kind, Dictionary<int, List<(double, double)>> windows, RequestPart? only)
    {
        if (windows.Count == 0)
        {
            return;
        }

        var index = new Dictionary<int, WindowIndex>();
        foreach (var (thread, list) in windows)
        {
            index.Add(thread, new WindowIndex(list));
        }

        _perThread.Add((Add(name, CauseScope.Thread, CauseUnit.Milliseconds, kind), index, only));
    }

    private static Dictionary<int, List<(double, double)>> Windows(ChunkedBuffer<TimeWindow> windows)
    {
        var byThread = new Dictionary<int, List<(double, double)>>();
        for (var i = 0; i < windows.Count; i++)
        {
            var window = windows[i];
            Group(byThread, window.ThreadId).Add((window.StartMSec, window.StopMSec));
        }

        return byThread;
    }

    private static Dictionary<int, List<T>> GroupByThread<T>(int count, Func<int, (int Thread, T Item)> item)
    {
        var byThread = new Dictionary<int, List<T>>();
        for (var i = 0; i < count; i++)
        {
            var (thread, value) = item(i);
            Group(byThread, thread).Add(value);
        }

        return byThread;
    }

    private static List<T> Group<T>(Dictionary<int, List<T>> byThread, int thread)
    {
        if (!byThread.TryGetValue(thread, out var list))
        {
            list = [];
            byThread.Add(thread, list);
        }

        return list;
    }

    private void MeasureNested(int requestIndex, double from, double to, Span<double> values)
    {
        var at = Array.BinarySearch(_nestedParents, requestIndex);
        if (at < 0)
        {
            return;
        }

        while (at > 0 && _nestedParents[at - 1] == requestIndex)
        {
            at--;
        }

        for (var i = at; i < _nestedParents.Length && _nestedParents[i] == requestIndex; i++)
        {
            ref var nested = ref _set.Requests.Nested[_nestedIndex[i]];
            var overlap = Math.Min(nested.StopMSec, to) - Math.Max(nested.StartMSec, from);
            if (overlap > 0)
            {
                values[_causeOfActivity[nested.Activity]] += overlap;
            }
        }
    }

    private void MeasureSamples(int threadId, double from, double to, Span<double> values)
    {
        if (_samples is null || _sampleCause[0] < 0 || !_samples.TryGetThread(threadId, out var samples))
        {
            return;
        }

        var (first, end) = samples.Range(from, to);
        for (var i = first; i < end; i++)
        {
            var category = _samples.Categories[samples.StackIds[i]];
            var cause = category == SampleCategory.SafePoint ? ParkedCause(samples.Times[i]) : _sampleCause[(int)category];
            if (cause >= 0)
            {
                values[cause] += _samples.IntervalMSec;
            }
        }

        // A sample stands for a whole interval, which can reach past the window's edges.
        foreach (var cause in _sampleCause)
        {
            if (cause >= 0)
            {
                values[cause] = Math.Min(values[cause], to - from);
            }
        }
    }

    private int Add(string name, CauseScope scope, CauseUnit unit, CauseKind kind)
    {
        _causes.Add(new CauseDefinition(name, scope, unit, kind));
        return _causes.Count - 1;
    }
}
