using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Comparison;

// The many-trace comparison the load test's --report writes (one trace per GC mode): every trace's
// `slowest` analysis side by side, each measured against the first that has one (the baseline).
// Rendered as HTML only; `compare` stays the two-trace form with its JSON contract.

/// <summary>One trace's column: what its analysis concluded, or why it has none.</summary>
/// <param name="Page">Its own slowest page, relative to the comparison page; null when it has none.</param>
/// <param name="Problem">Why the trace has no analysis (missing, unreadable, no requests); null when it has one.</param>
internal sealed record ModeColumn(
    string Label, string? File, string? Page, long Requests, string Selection, long SlowCount, double ThresholdMs, string Range,
    string Verdict, string? Truncation, string? Problem);

/// <summary>One activity of one trace: its percentiles and each one's ratio to the baseline's (null for the baseline itself
/// shows 1.00x; null when the baseline lacks the activity or its value is 0).</summary>
internal sealed record ModePercentileRow(
    string Activity, string Mode, bool Baseline, IReadOnlyList<double> ValuesMs, IReadOnlyList<double?> Ratios);

/// <summary>One cause across every analyzed trace: its slow share and lift per trace, null where the trace's requests never overlapped it.</summary>
internal sealed record ModeCauseRow(string Cause, string Scope, [property: System.Text.Json.Serialization.JsonConverter(typeof(CauseUnitJsonConverter))] CauseUnit Unit, bool Measurement, IReadOnlyList<CauseSide?> Sides);

/// <param name="Baseline">The label every ratio is measured against: the first trace with an analysis, or null when none has one.</param>
internal sealed record ModeComparisonReport(
    IReadOnlyList<ModeColumn> Modes, string? Baseline, IReadOnlyList<LatencyStatistic> Statistics, IReadOnlyList<ModePercentileRow> Percentiles,
    IReadOnlyList<ModeCauseRow> Causes);
