namespace TailDb.LoadTest.Measurement;

/// <summary>The percentiles the load test reports, in nanoseconds.</summary>
public sealed record LatencySummary(long Count, long P50, long P90, long P99, long P999, long P9999, long Max)
{
    public static LatencySummary From(LatencyHistogram histogram) => new(
        histogram.TotalCount,
        histogram.ValueAtPercentile(50),
        histogram.ValueAtPercentile(90),
        histogram.ValueAtPercentile(99),
        histogram.ValueAtPercentile(99.9),
        histogram.ValueAtPercentile(99.99),
        histogram.Max);
}
