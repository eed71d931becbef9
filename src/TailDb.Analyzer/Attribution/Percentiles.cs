namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Percentiles from the exact durations, sorted, at HdrHistogram's rank (<see cref="Rank"/>), not from a histogram (which the load test uses): the
/// analyzer holds every duration anyway to pick the slow set by rank, so the exact value costs nothing
/// over a histogram's 0.1% bucket error. Sorting N floats is the cheap part of an analysis.
/// </summary>
internal static class Percentiles
{
    /// <param name="sorted">Ascending.</param>
    public static double At(float[] sorted, double percentile)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        return sorted.Length == 0 ? double.NaN : sorted[Rank(sorted.Length, percentile) - 1];
    }

    public static double At(double[] sorted, double percentile)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        return sorted.Length == 0 ? double.NaN : sorted[Rank(sorted.Length, percentile) - 1];
    }

    /// <summary>
    /// The 1-based rank of <paramref name="percentile"/> among <paramref name="count"/> values: p x N
    /// rounded half up, at least 1, as HdrHistogram takes it. The load test's figures come from
    /// HdrHistogram, and the analyzer's must be the same request's: nearest rank (p x N rounded up)
    /// picks the next request whenever N mod 100 is 51-99 at p99, and in a GC's ramp the next request
    /// is a tenth of a millisecond away.
    /// </summary>
    public static long Rank(long count, double percentile)
    {
        // HdrHistogram's own expression, binary rounding and all, so no p x N near k + 0.5 picks apart.
        var rank = (long)((Math.Min(percentile, 100.0) / 100.0 * count) + 0.5);
        return Math.Clamp(rank, 1, Math.Max(count, 1));
    }
}
