using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

internal enum CauseUnit
{
    Milliseconds,
    Events,
}

/// <param name="Scope">"process" (stops every thread), "thread" (the request's own thread) or "request" (nested in it).</param>
internal sealed record CauseDefinition(string Name, string Scope, CauseUnit Unit, bool IsGc);

/// <summary>
/// Measures, for one request window, how much of it each cause covered: process-wide windows
/// (GC pauses, runtime suspensions) count for every request they overlap; contention, JIT,
/// exceptions and samples only on the request's own thread; nested activities (FileRead,
/// Fsync) only inside the request that owns them.
/// </summary>
internal sealed class Attributor
{
    private readonly List<CauseDefinition> _causes = [];
    private readonly List<(int Cause, WindowIndex Index)> _processWide = [];
    private readonly List<(int Cause, Dictionary<int, WindowIndex> ByThread)> _perThread = [];
    private readonly List<(int Cause, PointIndex Index)> _processPoints = [];
    private readonly List<(int Cause, Dictionary<int, PointIndex> ByThread)> _threadPoints = [];
    private readonly int[] _causeOfActivity;
    private readonly int[] _nestedIndex;
    private readonly int[] _nestedParents;
    private readonly ChunkedBuffer<NestedRecord> _nested;
    private readonly int[] _sampleCause;
    private readonly SampleComputer? _samples;

    public Attributor(ComputerSet set, SampleComputer? samples)
    {
        ArgumentNullException.ThrowIfNull(set);
        _samples = samples;

        for (var generation = -1; generation <= 2; generation++)
        {
            var windows = new List<(double, double)>();
            foreach (var pause in set.Gc.Pauses)
            {
                if (pause.Generation == generation)
                {
                    windows.Add((pause.StartMSec, pause.StopMSec));
                }
            }

            if (windows.Count > 0)
            {
                var name = generation < 0 ? "GC pauses (generation unknown)" : $"gen{generation} GC pauses";
                _processWide.Add((Add(name, "process", CauseUnit.Milliseconds, isGc: true), new WindowIndex(windows)));
            }
        }

        var byReason = new SortedDictionary<int, List<(double, double)>>();
        for (var i = 0; i < set.Suspensions.Windows.Count; i++)
        {
            var window = set.Suspensions.Windows[i];
            if (!byReason.TryGetValue(window.Tag, out var list))
            {
                list = [];
                byReason.Add(window.Tag, list);
            }

            list.Add((window.StartMSec, window.StopMSec));
        }

        foreach (var (reason, list) in byReason)
        {
            var name = SuspensionComputer.Describe((Microsoft.Diagnostics.Tracing.Parsers.Clr.GCSuspendEEReason)reason);
            _processWide.Add((Add(name, "process", CauseUnit.Milliseconds), new WindowIndex(list)));
        }

        AddPerThread("lock contention (ContentionStart/Stop)", set.Contention.Windows);
        AddPerThread("JIT compilation", set.Jit.Windows);

        if (set.ThreadPool.Starvation.Count > 0)
        {
            var times = new double[set.ThreadPool.Starvation.Count];
            for (var i = 0; i < times.Length; i++)
            {
                times[i] = set.ThreadPool.Starvation[i].TimeMSec;
            }

            Array.Sort(times);
            _processPoints.Add((Add("thread-pool starvation signals", "process", CauseUnit.Events), new PointIndex(times)));
        }

        if (set.Exceptions.Thrown.Count > 0)
        {
            var byThread = new Dictionary<int, List<double>>();
            foreach (var point in set.Exceptions.Thrown)
            {
                if (!byThread.TryGetValue(point.ThreadId, out var list))
                {
                    list = [];
                    byThread.Add(point.ThreadId, list);
                }

                list.Add(point.TimeMSec);
            }

            var index = new Dictionary<int, PointIndex>();
            foreach (var (thread, list) in byThread)
            {
                list.Sort();
                index.Add(thread, new PointIndex([.. list]));
            }

            _threadPoints.Add((Add("exceptions thrown", "thread", CauseUnit.Events), index));
        }

        // Nested activities, grouped by the request that owns them.
        var activities = set.Requests.Activities;
        var causeOfActivity = new int[activities.Count];
        for (var a = 0; a < activities.Count; a++)
        {
            causeOfActivity[a] = -1;
        }

        // Nested activities, grouped by the request that owns them: two int arrays sorted by parent,
        // pointing into the computer's own storage (millions of FileReads are not copied).
        var nested = set.Requests.Nested;
        _nested = nested;
        var owned = 0;
        for (var i = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired)
            {
                owned++;
                if (causeOfActivity[record.Activity] < 0)
                {
                    causeOfActivity[record.Activity] = Add($"{activities[record.Activity].Name} (nested activity)", "request", CauseUnit.Milliseconds);
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
        _causeOfActivity = causeOfActivity;

        _sampleCause = new int[Enum.GetValues<SampleCategory>().Length];
        for (var c = 0; c < _sampleCause.Length; c++)
        {
            _sampleCause[c] = -1;
        }

        if (samples is not null && double.IsFinite(samples.IntervalMSec))
        {
            foreach (var category in Enum.GetValues<SampleCategory>())
            {
                _sampleCause[(int)category] = Add($"samples: {SampleComputer.CategoryName(category)}", "thread", CauseUnit.Milliseconds);
            }
        }

        void AddPerThread(string name, ChunkedBuffer<TimeWindow> windows)
        {
            if (windows.Count == 0)
            {
                return;
            }

            var lists = new Dictionary<int, List<(double, double)>>();
            for (var i = 0; i < windows.Count; i++)
            {
                var window = windows[i];
                if (!lists.TryGetValue(window.ThreadId, out var list))
                {
                    list = [];
                    lists.Add(window.ThreadId, list);
                }

                list.Add((window.StartMSec, window.StopMSec));
            }

            var index = new Dictionary<int, WindowIndex>();
            foreach (var (thread, list) in lists)
            {
                index.Add(thread, new WindowIndex(list));
            }

            _perThread.Add((Add(name, "thread", CauseUnit.Milliseconds), index));
        }
    }

    public IReadOnlyList<CauseDefinition> Causes => _causes;

    public int SampleCause(SampleCategory category) => _sampleCause[(int)category];

    /// <summary>Writes each cause's overlap with the request into <paramref name="values"/> (cleared first).</summary>
    public void Measure(in RequestRecord request, int requestIndex, Span<double> values)
    {
        values.Clear();
        var from = request.StartMSec;
        var to = request.StopMSec;
        foreach (var (cause, index) in _processWide)
        {
            values[cause] = index.Overlap(from, to);
        }

        foreach (var (cause, byThread) in _perThread)
        {
            if (byThread.TryGetValue(request.ThreadId, out var index))
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

        for (var i = Array.BinarySearch(_nestedParents, requestIndex) is var at and >= 0 ? FirstOf(at, requestIndex) : _nestedParents.Length;
             i < _nestedParents.Length && _nestedParents[i] == requestIndex; i++)
        {
            ref var nested = ref _nested[_nestedIndex[i]];
            var overlap = Math.Min(nested.StopMSec, to) - Math.Max(nested.StartMSec, from);
            if (overlap > 0)
            {
                values[_causeOfActivity[nested.Activity]] += overlap;
            }
        }

        if (_samples is not null && _sampleCause[0] >= 0 && _samples.TryGetThread(request.ThreadId, out var samples))
        {
            var (first, end) = samples.Range(from, to);
            for (var i = first; i < end; i++)
            {
                values[_sampleCause[(int)_samples.Categories[samples.StackIds[i]]]] += _samples.IntervalMSec;
            }

            // A sample stands for a whole interval, which can reach past the window's edges.
            foreach (var cause in _sampleCause)
            {
                values[cause] = Math.Min(values[cause], to - from);
            }
        }
    }

    private int FirstOf(int at, int value)
    {
        while (at > 0 && _nestedParents[at - 1] == value)
        {
            at--;
        }

        return at;
    }

    private int Add(string name, string scope, CauseUnit unit, bool isGc = false)
    {
        _causes.Add(new CauseDefinition(name, scope, unit, isGc));
        return _causes.Count - 1;
    }
}
