using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Comparison;

// The `compare` model: two `slowest` analyses side by side. Its JSON form is a documented, stable
// shape (docs/analyzer.md, "report": "compare"): add fields, never rename or remove them without
// bumping SchemaVersion. Times are milliseconds, shares 0..1; B is always measured against A.

/// <summary>One trace's side: what was analyzed and what its `slowest` analysis concluded.</summary>
internal sealed record ComparedTrace(
    string Label, string File, double DurationMs, string? Truncation, string Provider, long Requests, string Selection, long SlowCount,
    double ThresholdMs, LatencyBasis Basis, string Range, string Verdict, VerdictSection? VerdictDetail);

/// <summary>Which latency statistic a percentile row holds.</summary>
internal enum LatencyStatistic
{
    P50,
    P90,
    P99,
    P999,
    Max,
}

/// <param name="A">Null when the activity has no requests in A (likewise B).</param>
/// <param name="DeltaMs">B − A; null when either side is missing.</param>
/// <param name="Ratio">B / A; null when either side is missing or A is 0.</param>
internal sealed record PercentileComparison(string Activity, LatencyStatistic Statistic, double? A, double? B, double? DeltaMs, double? Ratio)
{
    /// <summary>"p50" … "p99.9", "max": the spelling every renderer shows.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public string Label => Spell(Statistic);

    public static string Spell(LatencyStatistic statistic) => statistic switch
    {
        LatencyStatistic.P50 => "p50",
        LatencyStatistic.P90 => "p90",
        LatencyStatistic.P99 => "p99",
        LatencyStatistic.P999 => "p99.9",
        _ => "max",
    };
}

/// <summary>A cause in one trace: its share of the slow set (and of the rest) and the lift.</summary>
/// <param name="Lift">Null when the rest has none (tail-only), as in <see cref="CauseRow.Lift"/>.</param>
internal sealed record CauseSide(double SlowShare, double RestShare, double? Lift);

/// <summary>One cause across both traces; a side is null when that trace's requests never overlapped it.</summary>
/// <param name="SlowShareChange">B's slow share − A's, a missing side counting as 0 (its requests had none of it).</param>
/// <param name="LiftRatio">B's lift / A's; null unless both sides have a finite lift.</param>
internal sealed record CauseComparison(
    string Cause, string Scope, [property: System.Text.Json.Serialization.JsonConverter(typeof(CauseUnitJsonConverter))] CauseUnit Unit, bool Measurement, CauseSide? A, CauseSide? B, double SlowShareChange, double? LiftRatio);

internal sealed record ComparisonReport(
    string Report, int SchemaVersion, ComparedTrace A, ComparedTrace B, IReadOnlyList<PercentileComparison> Percentiles,
    IReadOnlyList<CauseComparison> Causes, IReadOnlyList<string> Notes)
{
    public const int CurrentSchemaVersion = 1;
}
