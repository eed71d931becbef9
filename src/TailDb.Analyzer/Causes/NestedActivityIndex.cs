using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Intervals;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// Nested activities (FileRead, Fsync), grouped by the request that owns them: two int arrays
/// sorted by parent, pointing into the computer's own storage (millions of FileReads are not copied).
/// One request's sums are made once for all its <see cref="NestedActivityCause"/>s. Beside them,
/// per activity and thread, the windows in which a nested activity of a cross-thread request (a
/// networked client's: started on its load thread, answered on a reader thread) held its thread
/// from start to stop: a PoolWait holds every request queued behind it on that load thread, which
/// that request's own nesting cannot show (in process, the earlier request's whole service does).
/// </summary>
internal sealed class NestedActivityIndex
{
    private readonly RequestComputer _requests;
    private readonly int[] _parents;
    private readonly int[] _nested;
    private readonly double[] _sums;
    private (int Request, double From, double To) _summed = (-1, double.NaN, double.NaN);
    private readonly Dictionary<(int Activity, int Thread), WindowIndex> _holding = [];

    public NestedActivityIndex(RequestComputer requests)
    {
        ArgumentNullException.ThrowIfNull(requests);
        _requests = requests;
        var nested = requests.Nested;
        var seen = new bool[requests.Activities.Count];
        var activities = new List<int>();
        var owned = 0;
        for (var i = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired)
            {
                owned++;
                if (!seen[record.Activity])
                {
                    seen[record.Activity] = true;
                    activities.Add(record.Activity);
                }
            }
        }

        Activities = activities;
        _sums = new double[requests.Activities.Count];
        _parents = new int[owned];
        _nested = new int[owned];
        for (int i = 0, at = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired)
            {
                _parents[at] = record.Parent;
                _nested[at++] = i;
            }
        }

        Array.Sort(_parents, _nested);
        var holding = new Dictionary<(int Activity, int Thread), List<(double Start, double Stop)>>();
        for (var i = 0; i < nested.Count; i++)
        {
            ref var record = ref nested[i];
            if (record.Parent >= 0 && record.IsPaired && record.SameThread && requests.Requests[record.Parent].CrossThread)
            {
                var key = (record.Activity, record.ThreadId);
                if (!holding.TryGetValue(key, out var list))
                {
                    holding.Add(key, list = []);
                }

                list.Add((record.StartMSec, record.StopMSec));
            }
        }

        foreach (var (key, list) in holding)
        {
            _holding.Add(key, new WindowIndex(list));
        }
    }

    /// <summary>How long <paramref name="activity"/> held <paramref name="thread"/> inside [from, to) (cross-thread requests' same-thread activities).</summary>
    public double Held(int activity, int thread, double from, double to) =>
        _holding.TryGetValue((activity, thread), out var windows) ? windows.Overlap(from, to) : 0;

    /// <summary>The activities some request owns, in the order they first appear.</summary>
    public IReadOnlyList<int> Activities { get; }

    /// <summary>How long <paramref name="activity"/>'s records owned by the request ran inside [from, to).</summary>
    public double Overlap(int requestIndex, double from, double to, int activity)
    {
        if (_summed != (requestIndex, from, to))
        {
            Sum(requestIndex, from, to);
            _summed = (requestIndex, from, to);
        }

        return _sums[activity];
    }

    private void Sum(int requestIndex, double from, double to)
    {
        Array.Clear(_sums);
        var at = Array.BinarySearch(_parents, requestIndex);
        if (at < 0)
        {
            return;
        }

        while (at > 0 && _parents[at - 1] == requestIndex)
        {
            at--;
        }

        for (var i = at; i < _parents.Length && _parents[i] == requestIndex; i++)
        {
            ref var nested = ref _requests.Nested[_nested[i]];
            var overlap = Math.Min(nested.StopMSec, to) - Math.Max(nested.StartMSec, from);
            if (overlap > 0)
            {
                _sums[nested.Activity] += overlap;
            }
        }
    }
}
