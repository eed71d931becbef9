namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Percentiles from the exact durations, sorted (nearest rank): no histogram's bucket error, and
/// HdrHistogram is not served here anyway. Sorting N doubles is the cheap part of an analysis.
/// </summary>
internal static class Percentiles
{
    /// <param name="sorted">Ascending.</param>
    public static double At(double[] sorted, double percentile)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        if (sorted.Length == 0)
        {
            return double.NaN;
        }

        var rank = (int)Math.Ceiling(percentile / 100.0 * sorted.Length);
        return sorted[Math.Clamp(rank - 1, 0, sorted.Length - 1)];
    }
}
