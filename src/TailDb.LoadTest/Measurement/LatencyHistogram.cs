using System.Numerics;

namespace TailDb.LoadTest.Measurement;

/// <summary>
/// A log-linear histogram with the bucket layout of HdrHistogram: 3 significant decimal digits
/// (2048 linear sub-buckets per power of two), values in nanoseconds from 1 ns to one hour.
/// HdrHistogram itself is not served by the package registry here (under any id), so this is the
/// small part of it the load test needs: record, record with expected interval (coordinated
/// omission correction), merge, value at percentile. Not thread-safe: one per thread, merged after.
/// </summary>
public sealed class LatencyHistogram
{
    // HdrHistogram sizes sub-buckets as 2 * 10^digits rounded up to a power of two: 2 * 10^3 -> 2048.
    private const int SubBucketHalfCountMagnitude = 10;
    private const int SubBucketHalfCount = 1 << SubBucketHalfCountMagnitude;
    private const int SubBucketCount = SubBucketHalfCount * 2;
    private const long SubBucketMask = SubBucketCount - 1;
    private const int LeadingZeroCountBase = 64 - SubBucketHalfCountMagnitude - 1;

    public const long DefaultHighestTrackableValue = 3_600_000_000_000; // one hour in ns

    private readonly long[] _counts;
    private long _max;
    private long _min = long.MaxValue;

    public LatencyHistogram(long highestTrackableValue = DefaultHighestTrackableValue)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(highestTrackableValue, SubBucketCount);
        HighestTrackableValue = highestTrackableValue;
        int bucketCount = 1;
        long smallestUntrackable = SubBucketCount;
        while (smallestUntrackable <= highestTrackableValue && smallestUntrackable < long.MaxValue / 2)
        {
            smallestUntrackable <<= 1;
            bucketCount++;
        }

        _counts = new long[(bucketCount + 1) * SubBucketHalfCount];
    }

    public long HighestTrackableValue { get; }

    public long TotalCount { get; private set; }

    /// <summary>The exact largest value recorded (not rounded to a bucket), 0 when empty.</summary>
    public long Max => _max;

    public long Min => TotalCount == 0 ? 0 : _min;

    /// <summary>Records one value; values above the trackable range count in the top bucket but
    /// still set <see cref="Max"/> exactly; negative values (clock went backwards) count as 0.</summary>
    public void Record(long value)
    {
        if (value < 0)
        {
            value = 0;
        }

        if (value > _max)
        {
            _max = value;
        }

        if (value < _min)
        {
            _min = value;
        }

        _counts[CountsIndex(Math.Min(value, HighestTrackableValue))]++;
        TotalCount++;
    }

    /// <summary>
    /// HdrHistogram's RecordValueWithExpectedInterval: records <paramref name="value"/> and, when it
    /// exceeds the interval at which samples were expected, the samples a stalled closed-loop
    /// tester failed to send (value - interval, value - 2·interval, ... down to the interval).
    /// </summary>
    public void RecordWithExpectedInterval(long value, long expectedInterval)
    {
        Record(value);
        if (expectedInterval <= 0)
        {
            return;
        }

        for (long missing = value - expectedInterval; missing >= expectedInterval; missing -= expectedInterval)
        {
            Record(missing);
        }
    }

    public void Add(LatencyHistogram other)
    {
        if (other._counts.Length != _counts.Length)
        {
            throw new ArgumentException("histograms have different ranges", nameof(other));
        }

        for (int i = 0; i < _counts.Length; i++)
        {
            _counts[i] += other._counts[i];
        }

        TotalCount += other.TotalCount;
        _max = Math.Max(_max, other._max);
        _min = Math.Min(_min, other._min);
    }

    public void Clear()
    {
        Array.Clear(_counts);
        TotalCount = 0;
        _max = 0;
        _min = long.MaxValue;
    }

    /// <summary>
    /// The value at or below which <paramref name="percentile"/>% of the recorded values fall,
    /// reported as the highest value equivalent to its bucket (as HdrHistogram does) but never
    /// above the exact maximum. 0 when empty.
    /// </summary>
    public long ValueAtPercentile(double percentile)
    {
        if (TotalCount == 0)
        {
            return 0;
        }

        if (percentile >= 100)
        {
            return _max;
        }

        long countAtPercentile = Math.Max(1, (long)((Math.Max(percentile, 0) / 100 * TotalCount) + 0.5));
        long cumulative = 0;
        for (int i = 0; i < _counts.Length; i++)
        {
            cumulative += _counts[i];
            if (cumulative >= countAtPercentile)
            {
                return Math.Min(HighestEquivalentValue(ValueFromIndex(i)), _max);
            }
        }

        return _max;
    }

    private static int CountsIndex(long value)
    {
        int bucketIndex = LeadingZeroCountBase - BitOperations.LeadingZeroCount((ulong)(value | SubBucketMask));
        int subBucketIndex = (int)(value >> bucketIndex);
        return ((bucketIndex + 1) << SubBucketHalfCountMagnitude) + (subBucketIndex - SubBucketHalfCount);
    }

    private static long ValueFromIndex(int index)
    {
        int bucketIndex = (index >> SubBucketHalfCountMagnitude) - 1;
        int subBucketIndex = (index & (SubBucketHalfCount - 1)) + SubBucketHalfCount;
        if (bucketIndex < 0)
        {
            subBucketIndex -= SubBucketHalfCount;
            bucketIndex = 0;
        }

        return (long)subBucketIndex << bucketIndex;
    }

    private static long HighestEquivalentValue(long value)
    {
        int bucketIndex = LeadingZeroCountBase - BitOperations.LeadingZeroCount((ulong)(value | SubBucketMask));
        int subBucketIndex = (int)(value >> bucketIndex);
        int adjustedBucket = subBucketIndex >= SubBucketCount ? bucketIndex + 1 : bucketIndex;
        long lowest = (long)subBucketIndex << bucketIndex;
        return lowest + (1L << adjustedBucket) - 1;
    }
}
