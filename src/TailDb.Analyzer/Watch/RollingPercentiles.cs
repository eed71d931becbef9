namespace TailDb.Analyzer.Watch;

/// <summary>
/// Percentiles of the last minute of request durations, with bounded memory and no allocation per
/// request: one log-linear histogram per second of event time (64 sub-buckets per power of two of
/// microseconds, under 1.6% relative error), summed into a running total; a second that falls out of
/// the minute is subtracted whole. A rolling p99 needs no exact sort of a minute of requests.
/// </summary>
internal sealed class RollingPercentiles
{
    private const int Linear = 128;
    private const int SubBuckets = 64;
    private const int Exponents = 36;
    private const int BucketCount = Linear + (Exponents * SubBuckets);

    private readonly int _seconds;
    private readonly long[][] _slots;
    private readonly long[] _slotSecond;
    private readonly long[] _total = new long[BucketCount];
    private long _count;
    private long _addedSecond = long.MinValue;

    public RollingPercentiles(int seconds = 60)
    {
        _seconds = seconds;
        _slots = new long[seconds][];
        _slotSecond = new long[seconds];
        for (var i = 0; i < seconds; i++)
        {
            _slots[i] = new long[BucketCount];
            _slotSecond[i] = -1;
        }
    }

    /// <summary>Requests in the rolling window.</summary>
    public long Count => _count;

    public void Add(double eventSecond, double durationMSec)
    {
        var second = (long)Math.Floor(eventSecond);
        // Requests arrive hundreds of thousands a second: expire slots once per new second, not per request.
        if (second != _addedSecond)
        {
            Advance(second);
            _addedSecond = second;
        }

        var index = Bucket((long)(durationMSec * 1000));
        _slots[(int)(second % _seconds)][index]++;
        _total[index]++;
        _count++;
    }

    /// <summary>Drops the seconds older than the minute ending at <paramref name="eventSecond"/>.</summary>
    public void Advance(double eventSecond)
    {
        var second = (long)Math.Floor(eventSecond);
        for (var i = 0; i < _seconds; i++)
        {
            if (_slotSecond[i] >= 0 && _slotSecond[i] <= second - _seconds)
            {
                Clear(i);
            }
        }

        var slot = (int)(second % _seconds);
        if (_slotSecond[slot] != second)
        {
            Clear(slot);
            _slotSecond[slot] = second;
        }

        // The view advances too (once a second): the next Add checks its slot again.
        _addedSecond = long.MinValue;
    }

    /// <summary>The duration (ms) at <paramref name="percentile"/>, the bucket's upper edge; NaN when empty.</summary>
    public double At(double percentile)
    {
        if (_count == 0)
        {
            return double.NaN;
        }

        long rank = Attribution.Percentiles.Rank(_count, percentile);
        long seen = 0;
        for (var i = 0; i < BucketCount; i++)
        {
            seen += _total[i];
            if (seen >= rank)
            {
                return UpperEdgeMicroseconds(i) / 1000.0;
            }
        }

        return UpperEdgeMicroseconds(BucketCount - 1) / 1000.0;
    }

    private void Clear(int slot)
    {
        var counts = _slots[slot];
        for (var i = 0; i < BucketCount; i++)
        {
            _total[i] -= counts[i];
            _count -= counts[i];
        }

        Array.Clear(counts);
        _slotSecond[slot] = -1;
    }

    internal static int Bucket(long microseconds)
    {
        if (microseconds < Linear)
        {
            return (int)Math.Max(0, microseconds);
        }

        var log2 = 63 - (int)long.LeadingZeroCount(microseconds);
        var shift = log2 - 6;
        var sub = (int)(microseconds >> shift) - SubBuckets;
        var index = Linear + ((shift - 1) * SubBuckets) + sub;
        return Math.Min(index, BucketCount - 1);
    }

    internal static long UpperEdgeMicroseconds(int index)
    {
        if (index < Linear)
        {
            return index;
        }

        var shift = ((index - Linear) / SubBuckets) + 1;
        var sub = ((index - Linear) % SubBuckets) + SubBuckets;
        return ((long)(sub + 1) << shift) - 1;
    }
}
