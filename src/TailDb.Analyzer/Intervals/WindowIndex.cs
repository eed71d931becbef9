namespace TailDb.Analyzer.Intervals;

/// <summary>
/// Windows sorted by start with a running maximum of their ends, so "how much of [from, to) do
/// they cover" is a binary search plus a walk over the windows that actually overlap. Overlapping
/// windows (nested JIT) are counted once: the result is the covered time, not a sum.
/// </summary>
internal sealed class WindowIndex
{
    private readonly double[] _starts;
    private readonly double[] _stops;
    private readonly double[] _maxStopSoFar;

    public WindowIndex(List<(double Start, double Stop)> windows)
    {
        ArgumentNullException.ThrowIfNull(windows);
        _starts = new double[windows.Count];
        _stops = new double[windows.Count];
        for (var i = 0; i < windows.Count; i++)
        {
            _starts[i] = windows[i].Start;
            _stops[i] = windows[i].Stop;
        }

        Array.Sort(_starts, _stops);
        _maxStopSoFar = new double[_stops.Length];
        var max = double.NegativeInfinity;
        for (var i = 0; i < _stops.Length; i++)
        {
            max = Math.Max(max, _stops[i]);
            _maxStopSoFar[i] = max;
            TotalMSec += _stops[i] - _starts[i];
        }
    }

    public int Count => _starts.Length;

    public double TotalMSec { get; }

    public double Overlap(double from, double to)
    {
        // First window that can reach past `from`: the running maximum is sorted.
        int lo = 0, hi = _maxStopSoFar.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (_maxStopSoFar[mid] <= from)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        var covered = 0.0;
        var coveredUntil = from;
        for (var i = lo; i < _starts.Length && _starts[i] < to; i++)
        {
            var start = Math.Max(_starts[i], coveredUntil);
            var stop = Math.Min(_stops[i], to);
            if (stop > start)
            {
                covered += stop - start;
                coveredUntil = stop;
            }
        }

        return covered;
    }
}

/// <summary>Instants sorted in time: how many fall inside [from, to).</summary>
internal sealed class PointIndex(double[] sortedTimes)
{
    public int Count(double from, double to) => LowerBound(to) - LowerBound(from);

    private int LowerBound(double value)
    {
        int lo = 0, hi = sortedTimes.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (sortedTimes[mid] < value)
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
