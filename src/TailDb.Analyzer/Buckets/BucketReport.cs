using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;

namespace TailDb.Analyzer.Buckets;

/// <summary>One bucket scheme's estimate of one percentile, with its error against the exact value.</summary>
internal sealed record BucketEstimate(string Scheme, int Buckets, double EstimateMs, double ErrorPercent);

internal sealed record BucketPercentileRow(double Percentile, double ExactMs, IReadOnlyList<BucketEstimate> Estimates);

internal sealed record BucketReport(string Report, int SchemaVersion, string File, long Requests, IReadOnlyList<BucketPercentileRow> Rows, string Basis)
{
    public const int CurrentSchemaVersion = 1;

    public static readonly double[] Growths = [2.0, 1.4, 1.2, 1.1];

    public static readonly double[] Percentiles = [50, 90, 99, 99.9];

    /// <summary>
    /// The requests of a trace (as slowest picks them: a load test's trace by its Request activity's
    /// response time), every duration sorted, through <see cref="Of"/>; and whether the trace was cut short.
    /// </summary>
    /// <exception cref="AnalyzerException">The trace cannot be read or holds no completed requests.</exception>
    public static (BucketReport Report, bool Truncated) Read(string tracePath, RequestSelection selection)
    {
        ArgumentNullException.ThrowIfNull(selection);
        var kind = Traces.TraceFile.Check(tracePath);
        var resolved = RequestSources.Resolve(tracePath, selection, kind);
        var set = ComputerSet.Run(tracePath, resolved);
        var scope = AnalysisScope.Resolve(ScopeSettings.Default, set);
        var population = new Population(set, scope);
        if (population.Paired == 0)
        {
            throw set.Facts.Lacking(ExitCode.NoRequests, $"{tracePath}: no completed {resolved.Provider} requests in the trace");
        }

        var all = new List<float>();
        for (var a = 0; a < population.Durations.Length; a++)
        {
            if (set.Requests.Activities[a].IsRequest)
            {
                all.AddRange(population.Durations[a]);
            }
        }

        var durations = all.ToArray();
        Array.Sort(durations);
        var report = Of(tracePath, durations, $"{resolved.Provider} {string.Join("/", resolved.Activities)}, {scope.RangeDescription}; latency: {scope.BasisDescription}");
        return (report, set.Facts.Truncation is not null);
    }

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
            (population is null ? "" : population + "; ") + "exact = the value at rank p x N rounded half up (HdrHistogram's) over every request's duration; estimates = the bucket holding the rank, linearly interpolated " +
            "between its bounds (exponential buckets 0-1, 1-g, g-g², ... ms); a rank in OpenTelemetry's open last bucket (> 10 s) reads as 10 s");
    }
}
