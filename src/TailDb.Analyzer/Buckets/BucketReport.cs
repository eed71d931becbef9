using TailDb.Analyzer.Attribution;

namespace TailDb.Analyzer.Buckets;

/// <summary>One bucket scheme's estimate of one percentile, with its error against the exact value.</summary>
internal sealed record BucketEstimate(string Scheme, int Buckets, double EstimateMs, double ErrorPercent);

internal sealed record BucketPercentileRow(double Percentile, double ExactMs, IReadOnlyList<BucketEstimate> Estimates);

internal sealed record BucketReport(string Report, int SchemaVersion, string File, long Requests, IReadOnlyList<BucketPercentileRow> Rows, string Basis)
{
    public const int CurrentSchemaVersion = 1;

    public static readonly double[] Growths = [2.0, 1.4, 1.2, 1.1];

    public static readonly double[] Percentiles = [50, 90, 99, 99.9];

    /// <param name="sorted">Every duration, ascending.</param>
    /// <param name="population">Which requests and which latency <paramref name="sorted"/> holds, said first in <see cref="Basis"/>.</param>
    public static BucketReport Of(string file, float[] sorted, string? population = null)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        var max = sorted.Length > 0 ? sorted[^1] : 1;
        var schemes = Growths.Select(g => BucketScheme.Exponential(g, max)).Append(BucketScheme.OpenTelemetryDefault).ToArray();
        var histograms = schemes.Select(s => BucketHistogram.Of(s, sorted)).ToArray();
        var rows = new List<BucketPercentileRow>();
        foreach (var p in Percentiles)
        {
            var exact = Attribution.Percentiles.At(sorted, p);
            rows.Add(new BucketPercentileRow(p, Population.Round(exact), [.. histograms.Select(h =>
            {
                var estimate = h.Estimate(p);
                return new BucketEstimate(h.Scheme.Name, h.Scheme.Bounds.Length + 1, Population.Round(estimate),
                    exact > 0 ? Math.Round((estimate - exact) / exact * 100, 2) : double.NaN);
            })]));
        }

        return new BucketReport("buckets", CurrentSchemaVersion, file, sorted.Length, rows,
            (population is null ? "" : population + "; ") + "exact = nearest rank over every request's duration; estimates = the bucket holding the rank, linearly interpolated " +
            "between its bounds (exponential buckets 0-1, 1-g, g-g², ... ms); a rank in OpenTelemetry's open last bucket (> 10 s) reads as 10 s");
    }
}
