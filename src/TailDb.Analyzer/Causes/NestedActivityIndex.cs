using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// Nested activities (FileRead, Fsync), grouped by the request that owns them: two int arrays
/// sorted by parent, pointing into the computer's own storage (millions of FileReads are not copied).
/// One request's sums are made once for all its <see cref="NestedActivityCause"/>s.
/// </summary>
internal sealed class NestedActivityIndex
{
    private readonly RequestComputer _requests;
    private readonly int[] _parents;
    private readonly int[] _nested;
    private readonly double[] _sums;
    private (int Request, double From, double To) _summed = (-1, double.NaN, double.NaN);

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
    }

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
