using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Pictures;

/// <summary>
/// Turns the analysis's computers into <see cref="PictureData"/>. A browser draws a few hundred
/// thousand dots smoothly, not ten million, so the dots outside the slow set are thinned by a stride
/// in start order; every slow request stays, and the heatmap counts every request.
/// </summary>
internal static class PictureBuilder
{
    /// <summary>Dots kept outside the slow set, at most.</summary>
    public const int RestBudget = 60_000;

    /// <summary>Non-request windows drawn on the timeline, at most per kind (the longest are kept).</summary>
    public const int WindowBudget = 20_000;

    /// <summary>How far a request view reaches either side of its request.</summary>
    public const double MarginMs = 5;

    private const int HeatColumns = 240;
    private const int HeatRows = 48;

    /// <summary>Flame frames below this share of both the slow and the whole-run total are left out.</summary>
    private const double FlamePrune = 0.0005;

    public static PictureData Build(ComputerSet set, SampleComputer? samples, AnalysisScope scope, double thresholdMs, int top, double durationMs)
    {
        ArgumentNullException.ThrowIfNull(set);
        var requests = set.Requests.Requests;
        long paired = 0, slow = 0;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var r = ref requests[i];
            if (scope.Contains(r))
            {
                paired++;
                if (scope.Latency(r) >= thresholdMs)
                {
                    slow++;
                }
            }
        }

        var stride = (int)Math.Max(1, Math.Ceiling((paired - slow) / (double)RestBudget));
        List<double> slowT = [], slowD = [], slowQ = [], restT = [], restD = [], restQ = [];
        var queued = scope.Basis == LatencyBasis.Response;
        var slowIndices = new List<int>();
        long restSeen = 0;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var r = ref requests[i];
            if (!scope.Contains(r))
            {
                continue;
            }

            // Dots sit at arrival with their latency on the scope's basis (response time when known).
            if (scope.Latency(r) >= thresholdMs)
            {
                slowT.Add(R(r.ArrivalMSec));
                slowD.Add(R(scope.Latency(r)));
                slowQ.Add(R(r.QueueMSec));
                slowIndices.Add(i);
            }
            else if (restSeen++ % stride == 0)
            {
                restT.Add(R(r.ArrivalMSec));
                restD.Add(R(scope.Latency(r)));
                restQ.Add(R(r.QueueMSec));
            }
        }

        var sampling = stride == 1
            ? $"every one of the {paired:N0} requests is a dot"
            : $"all {slow:N0} slow requests are dots; of the other {paired - slow:N0}, one in {stride:N0} in start order ({restT.Count:N0} dots)";
        var names = new NameTable();
        var gc = GcWindows(set.Gc.Pauses, 0, double.MaxValue);
        var suspensions = Longest(set.Suspensions.Windows, w => w.Tag);
        var contention = Longest(set.Contention.Windows, w => w.ThreadId);
        var flame = Flame(set, samples, slowIndices, names, out var slowMs, out var wholeMs);
        slowIndices.Sort((a, b) => scope.Latency(requests[b]).CompareTo(scope.Latency(requests[a])));
        var views = new List<RequestView>();
        for (var k = 0; k < slowIndices.Count && k < top; k++)
        {
            views.Add(View(k + 1, slowIndices[k], set, samples, names));
        }

        var phases = set.Phases.Phases.Select(p => new PhaseMark(AnalysisScope.Name(p.Phase), R(p.StartMSec), R(p.StopMSec))).ToList();
        return new PictureData(R(durationMs), R(thresholdMs), paired, slow, sampling, new RequestDots([.. slowT], [.. slowD], queued ? [.. slowQ] : null),
            new RequestDots([.. restT], [.. restD], queued ? [.. restQ] : null), gc, suspensions, contention, Heat(set, scope, durationMs),
            samples is null ? 0 : R(samples.IntervalMSec), flame, R(slowMs), R(wholeMs),
            samples is null ? "no samples" : "sampled stacks (root at top); slow = the slow requests' own-thread samples plus [GC pause] time inside their windows",
            views, names.Names, phases);
    }

    private static double R(double ms) => Math.Round(ms, 3);

    private static PictureWindows GcWindows(List<GcPause> pauses, double from, double to)
    {
        List<double> s = [], d = [];
        List<int> g = [];
        foreach (var p in pauses)
        {
            if (p.StopMSec >= from && p.StartMSec <= to)
            {
                s.Add(R(p.StartMSec));
                d.Add(R(p.DurationMSec));
                g.Add(p.Generation);
            }
        }

        return new PictureWindows([.. s], [.. d], [.. g], s.Count, "all");
    }

    private static PictureWindows Longest(ChunkedBuffer<TimeWindow> windows, Func<TimeWindow, int> kind)
    {
        var all = new List<TimeWindow>(windows.Count);
        for (var i = 0; i < windows.Count; i++)
        {
            all.Add(windows[i]);
        }

        var kept = "all";
        if (all.Count > WindowBudget)
        {
            all.Sort((a, b) => b.DurationMSec.CompareTo(a.DurationMSec));
            all.RemoveRange(WindowBudget, all.Count - WindowBudget);
            kept = $"the longest {WindowBudget:N0} of {windows.Count:N0}";
        }

        all.Sort((a, b) => a.StartMSec.CompareTo(b.StartMSec));
        return new PictureWindows([.. all.Select(w => R(w.StartMSec))], [.. all.Select(w => R(w.DurationMSec))], [.. all.Select(kind)], windows.Count, kept);
    }

    private static PictureWindows Within(ChunkedBuffer<TimeWindow> windows, double from, double to, int? thread, Func<TimeWindow, int> kind)
    {
        List<double> s = [], d = [];
        List<int> k = [];
        for (var i = 0; i < windows.Count; i++)
        {
            var w = windows[i];
            if (w.StopMSec >= from && w.StartMSec <= to && (thread is null || w.ThreadId == thread))
            {
                s.Add(R(w.StartMSec));
                d.Add(R(w.DurationMSec));
                k.Add(kind(w));
            }
        }

        return new PictureWindows([.. s], [.. d], [.. k], s.Count, "all");
    }

    private static Heatmap Heat(ComputerSet set, AnalysisScope scope, double durationMs)
    {
        var requests = set.Requests.Requests;
        double min = double.MaxValue, max = 0;
        for (var i = 0; i < requests.Count; i++)
        {
            ref var r = ref requests[i];
            if (scope.Contains(r) && scope.Latency(r) > 0)
            {
                min = Math.Min(min, scope.Latency(r));
                max = Math.Max(max, scope.Latency(r));
            }
        }

        if (max <= 0)
        {
            return new Heatmap(0, [], []);
        }

        var lo = Math.Log(min);
        var step = Math.Max(1e-9, (Math.Log(max) - lo) / HeatRows);
        var bounds = new double[HeatRows + 1];
        for (var b = 0; b <= HeatRows; b++)
        {
            bounds[b] = Math.Round(Math.Exp(lo + (b * step)), 4);
        }

        var slice = Math.Max(durationMs, 1e-3) / HeatColumns;
        var counts = new int[HeatColumns][];
        for (var c = 0; c < HeatColumns; c++)
        {
            counts[c] = new int[HeatRows];
        }

        for (var i = 0; i < requests.Count; i++)
        {
            ref var r = ref requests[i];
            if (scope.Contains(r) && scope.Latency(r) > 0)
            {
                var col = Math.Clamp((int)(r.ArrivalMSec / slice), 0, HeatColumns - 1);
                var row = Math.Clamp((int)((Math.Log(scope.Latency(r)) - lo) / step), 0, HeatRows - 1);
                counts[col][row]++;
            }
        }

        return new Heatmap(R(slice), bounds, counts);
    }

    private static FlameNode Flame(ComputerSet set, SampleComputer? samples, List<int> slowIndices, NameTable names, out double slowMs, out double wholeMs)
    {
        var root = new Builder();
        slowMs = wholeMs = 0;
        if (samples is not null)
        {
            var interval = samples.IntervalMSec;
            var stacks = samples.Set.Stacks;
            var whole = new Dictionary<int, int>();
            foreach (var thread in samples.Threads)
            {
                foreach (var id in thread.StackIds)
                {
                    whole[id] = whole.GetValueOrDefault(id) + 1;
                }
            }

            foreach (var (id, count) in whole)
            {
                root.Add(stacks[id], 0, count * interval);
                wholeMs += count * interval;
            }

            var slowCounts = new Dictionary<int, int>();
            foreach (var index in slowIndices)
            {
                ref var request = ref set.Requests.Requests[index];
                if (samples.TryGetThread(request.ThreadId, out var thread))
                {
                    var (first, end) = thread.Range(request.StartMSec, request.StopMSec);
                    for (var i = first; i < end; i++)
                    {
                        slowCounts[thread.StackIds[i]] = slowCounts.GetValueOrDefault(thread.StackIds[i]) + 1;
                    }
                }
            }

            foreach (var (id, count) in slowCounts)
            {
                root.Add(stacks[id], count * interval, 0);
                slowMs += count * interval;
            }
        }

        // The sampler takes no samples during a GC: the slow windows' pause time joins as a pseudo-frame.
        var pauses = set.Gc.Pauses;
        var pauseIndex = new WindowIndex([.. pauses.Select(p => (p.StartMSec, p.StopMSec))]);
        var gcMs = 0.0;
        foreach (var index in slowIndices)
        {
            ref var request = ref set.Requests.Requests[index];
            gcMs += pauseIndex.Overlap(request.StartMSec, request.StopMSec);
        }

        if (gcMs > 0)
        {
            root.Child("[GC pause]").Slow += gcMs;
            root.Child("[GC pause]").Whole += pauses.Sum(p => p.DurationMSec);
            slowMs += gcMs;
            wholeMs += pauses.Sum(p => p.DurationMSec);
        }

        root.Slow = slowMs;
        root.Whole = wholeMs;
        return root.Freeze("all", names, slowMs, wholeMs);
    }

    private static RequestView View(int rank, int index, ComputerSet set, SampleComputer? samples, NameTable names)
    {
        ref var request = ref set.Requests.Requests[index];
        var activity = set.Requests.Activities[request.Activity];
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        for (var f = 0; f < activity.FieldNames.Count; f++)
        {
            if (activity.TryGet(request, f, out var value))
            {
                fields[activity.FieldNames[f]] = activity.IsText(f) ? activity.TextOf(f, value) : value.ToString(System.Globalization.CultureInfo.InvariantCulture);
            }
        }

        var from = request.ArrivalMSec - MarginMs;
        var to = request.StopMSec + MarginMs;
        var times = new List<double>();
        var frames = new List<int>();
        if (samples is not null && samples.TryGetThread(request.ThreadId, out var thread))
        {
            var (first, end) = thread.Range(from, to);
            for (var i = first; i < end; i++)
            {
                times.Add(R(thread.Times[i]));
                frames.Add(names.Id(samples.LeafFrames[thread.StackIds[i]]));
            }
        }

        List<double> fs = [], fd = [];
        List<int> fk = [];
        var nested = set.Requests.Nested;
        for (var i = 0; i < nested.Count; i++)
        {
            ref var n = ref nested[i];
            if (n.Parent == index && n.IsPaired)
            {
                fs.Add(R(n.StartMSec));
                fd.Add(R(n.StopMSec - n.StartMSec));
                fk.Add(n.Activity);
            }
        }

        return new RequestView(rank, activity.Name, R(request.StartMSec), R(request.DurationMSec), request.HasArrival ? R(request.ResponseMSec - request.DurationMSec) : null, request.ThreadId, fields, R(from), R(to),
            GcWindows(set.Gc.Pauses, from, to), Within(set.Suspensions.Windows, from, to, null, w => w.Tag),
            Within(set.Contention.Windows, from, to, request.ThreadId, w => w.ThreadId), new PictureWindows([.. fs], [.. fd], [.. fk], fs.Count, "all"),
            [.. times], [.. frames]);
    }

    private sealed class NameTable
    {
        private readonly Dictionary<string, int> _ids = new(StringComparer.Ordinal);

        public List<string> Names { get; } = [];

        public int Id(string name)
        {
            if (!_ids.TryGetValue(name, out var id))
            {
                id = Names.Count;
                Names.Add(name);
                _ids.Add(name, id);
            }

            return id;
        }
    }

    private sealed class Builder
    {
        private readonly Dictionary<string, Builder> _children = new(StringComparer.Ordinal);

        public double Slow { get; set; }

        public double Whole { get; set; }

        public Builder Child(string name)
        {
            if (!_children.TryGetValue(name, out var child))
            {
                child = new Builder();
                _children.Add(name, child);
            }

            return child;
        }

        /// <summary>Adds a leaf-first stack from its root down.</summary>
        public void Add(IReadOnlyList<string> leafFirst, double slow, double whole)
        {
            var node = this;
            for (var i = leafFirst.Count - 1; i >= 0; i--)
            {
                node = node.Child(leafFirst[i]);
                node.Slow += slow;
                node.Whole += whole;
            }
        }

        public FlameNode Freeze(string name, NameTable names, double slowTotal, double wholeTotal)
        {
            var children = new List<FlameNode>();
            foreach (var (childName, child) in _children.OrderByDescending(c => c.Value.Slow + c.Value.Whole).ThenBy(c => c.Key, StringComparer.Ordinal))
            {
                if ((slowTotal > 0 && child.Slow >= slowTotal * FlamePrune) || (wholeTotal > 0 && child.Whole >= wholeTotal * FlamePrune))
                {
                    children.Add(child.Freeze(childName, names, slowTotal, wholeTotal));
                }
            }

            return new FlameNode(names.Id(name), R(Slow), R(Whole), children);
        }
    }
}
