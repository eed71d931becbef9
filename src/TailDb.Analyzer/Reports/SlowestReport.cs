namespace TailDb.Analyzer.Reports;

// The report model. Its JSON form is a documented, stable shape (docs/analyzer.md): add fields,
// never rename or remove them without bumping SchemaVersion. Times are milliseconds, shares 0..1.

internal sealed record TraceSection(
    string File, long Bytes, double DurationMs, long Events, int EventsLost, string? Truncation,
    string Pairing, double? SamplingIntervalMs, long Samples, string Stacks);

internal sealed record ActivityStats(
    string Name, long Count, double P50Ms, double P90Ms, double P99Ms, double P999Ms, double MaxMs, long UnpairedStarts, long UnpairedStops);

internal sealed record NestedStats(string Name, long Count, long WithParent, long UnpairedStarts, long UnpairedStops);

internal sealed record PopulationSection(
    string Provider, IReadOnlyList<ActivityStats> Activities, IReadOnlyList<NestedStats> Nested, long Requests, string Selection,
    long SlowCount, double ThresholdMs);

/// <param name="Unit">"ms": shares are fractions of request time; "events": values are events per request.</param>
/// <param name="Lift">SlowShare / RestShare; null when the rest has none (only in the tail).</param>
internal sealed record CauseRow(
    string Cause, string Scope, string Unit, double SlowShare, double RestShare, double? Lift, double SlowTotal, double RestTotal)
{
    /// <summary>Past this a lift only says "the rest barely has it": a rest share of a few
    /// samples makes the ratio arbitrary (1 ms samples rarely land in microsecond requests).</summary>
    public const double LiftCeiling = 1000;

    /// <summary>"12.3x", "&gt;1000x" or "tail-only"; the one spelling every text renderer uses (JSON keeps the number).</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public string LiftText => Lift switch
    {
        null => "tail-only",
        > LiftCeiling => ">" + LiftCeiling.ToString("0", System.Globalization.CultureInfo.InvariantCulture) + "x",
        { } l => l.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture) + "x",
    };
}

internal sealed record FrameRow(string Frame, string Category, double Ms, double Share);

internal sealed record ProfileSection(string WholeRunBasis, IReadOnlyList<FrameRow> WholeRun, string SlowWindowsBasis, IReadOnlyList<FrameRow> SlowWindows);

internal sealed record CauseOverlap(string Cause, string Unit, double Value);

internal sealed record SlowRequestRow(
    int Rank, string Activity, double StartMs, double DurationMs, int ThreadId, IReadOnlyDictionary<string, long> Fields,
    IReadOnlyList<CauseOverlap> Causes, IReadOnlyList<FrameRow> TopFrames);

/// <param name="Kind">"binary" (every value 0 or 1, e.g. hit) or "numeric".</param>
internal sealed record PayloadRow(
    string Activity, string Field, string Kind, long Requests, double SlowMean, double RestMean, double? Correlation, string Finding);

internal sealed record SlowestReport(
    string Report, int SchemaVersion, TraceSection Trace, PopulationSection Population, IReadOnlyList<CauseRow> Causes,
    ProfileSection Profile, IReadOnlyList<SlowRequestRow> Slowest, string Verdict, IReadOnlyList<PayloadRow> Payload,
    IReadOnlyList<string> Notes)
{
    public const int CurrentSchemaVersion = 1;
}

internal sealed record GcStats(
    IReadOnlyList<long> CountByGeneration, long Pauses, double PauseP50Ms, double PauseP99Ms, double PauseMaxMs, double TotalPauseMs,
    double PausedShare, long OtherSuspensions, double OtherSuspendedMs, double OtherSuspendedShare);

internal sealed record SummaryReport(
    string Report, int SchemaVersion, TraceSection Trace, IReadOnlyList<ActivityStats> Activities, IReadOnlyList<NestedStats> Nested,
    GcStats Gc, IReadOnlyList<string> Notes);
