using System.Text.Json.Serialization;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Attribution;

// The report model. Its JSON form is a documented, stable shape (docs/analyzer.md): add fields,
// never rename or remove them without bumping SchemaVersion. Times are milliseconds, shares 0..1.

internal sealed record TraceSection(
    string File, long Bytes, double DurationMs, long Events, int EventsLost, string? Truncation,
    string Pairing, double? SamplingIntervalMs, long Samples, string Stacks);

internal sealed record ActivityStats(
    string Name, long Count, double P50Ms, double P90Ms, double P99Ms, double P999Ms, double MaxMs, long UnpairedStarts, long UnpairedStops);

internal sealed record NestedStats(string Name, long Count, long WithParent, long UnpairedStarts, long UnpairedStops);

/// <param name="Basis">What the percentiles, the ranking and the threshold measure: response time when requests carry their arrival.</param>
/// <param name="Range">Which requests: a phase, a --from/--to range, or the whole trace.</param>
internal sealed record PopulationSection(
    string Provider, IReadOnlyList<ActivityStats> Activities, IReadOnlyList<NestedStats> Nested, long Requests, string Selection,
    long SlowCount, double ThresholdMs, LatencyBasis Basis, string BasisDescription, string Range);

/// <param name="Unit">Milliseconds ("ms" in JSON): shares are fractions of request time; Events ("events"): values are events per request.</param>
/// <param name="Lift">SlowShare / RestShare; null when the rest has none (only in the tail).</param>
/// <param name="SlowQueueTotal">Of SlowTotal, the part that fell in the slow requests' queue (arrival → start).</param>
/// <param name="Measurement">The measurement's own cost (sampler suspensions, tracing code, the recording's threads on a CPU), never the verdict.</param>
/// <param name="EventBased">Seen by events with exact times, not inferred from CPU samples (not in the JSON: the kind says it).</param>
internal sealed record CauseRow(
    string Cause, string Scope, [property: JsonConverter(typeof(CauseUnitJsonConverter))] CauseUnit Unit, double SlowShare, double RestShare, double? Lift, double SlowTotal, double RestTotal,
    CauseKind Kind = CauseKind.Samples, double SlowQueueTotal = 0, bool Measurement = false, [property: JsonIgnore] bool EventBased = false)
{
    /// <summary>Past this a lift only says "the rest barely has it": a rest share of a few
    /// samples makes the ratio arbitrary (1 ms samples rarely land in microsecond requests).</summary>
    public const double LiftCeiling = 1000;

    /// <summary>"12.3x", "&gt;1000x" or "tail-only"; the one spelling every text renderer uses (JSON keeps the number).</summary>
    [JsonIgnore]
    public string LiftText => Spell(Lift);

    /// <summary>The spelling of any lift, for renderers that hold the number without a row (the verdict).</summary>
    public static string Spell(double? lift) => lift switch
    {
        null => "tail-only",
        > LiftCeiling => ">" + LiftCeiling.ToString("0", System.Globalization.CultureInfo.InvariantCulture) + "x",
        { } l => l.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture) + "x",
    };
}

internal sealed record FrameRow(string Frame, string Category, double Ms, double Share);

internal sealed record ProfileSection(string WholeRunBasis, IReadOnlyList<FrameRow> WholeRun, string SlowWindowsBasis, IReadOnlyList<FrameRow> SlowWindows);

internal sealed record CauseOverlap(string Cause, [property: JsonConverter(typeof(CauseUnitJsonConverter))] CauseUnit Unit, double Value, CauseKind Kind = CauseKind.Samples);

/// <param name="StartMs">When the request arrived (its Start when it carries no arrival).</param>
/// <param name="DurationMs">Its latency on the report's basis: QueueMs + ServiceMs for response time.</param>
/// <param name="Causes">Over the whole window; <paramref name="QueueCauses"/> and <paramref name="ServiceCauses"/> split it.</param>
/// <param name="Named">The cause named for this request (<see cref="RequestBlame"/>): its largest cause that is not the
/// measurement's own cost, a sample-based cause counted only beyond what ordinary requests' samples show; Value is the
/// time that counted. Null when nothing recorded explains it.</param>
internal sealed record SlowRequestRow(
    int Rank, string Activity, double StartMs, double DurationMs, int ThreadId, IReadOnlyDictionary<string, long> Fields,
    IReadOnlyList<CauseOverlap> Causes, IReadOnlyList<FrameRow> TopFrames,
    double QueueMs = 0, double ServiceMs = 0, IReadOnlyList<CauseOverlap>? QueueCauses = null, IReadOnlyList<CauseOverlap>? ServiceCauses = null,
    IReadOnlyDictionary<string, string>? Text = null, CauseOverlap? Named = null)
{
    /// <summary>Every payload field as text, strings first (the method and path of an ASP.NET Core request), then numbers.</summary>
    public string DescribeFields() => string.Join(" ", (Text ?? new Dictionary<string, string>()).Select(f => $"{f.Key}={f.Value}")
        .Concat(Fields.Select(f => $"{f.Key}={f.Value}")));
}

/// <summary>The verdict as data; <see cref="SlowestReport.Verdict"/> is its sentence.</summary>
/// <param name="Cause">The largest cause of the slow set's time that is not measurement overhead, or null.</param>
/// <param name="QueueShare">Of <paramref name="SlowShare"/>, the part in the slow requests' queues.</param>
/// <param name="MeasurementOverheadShare">The measurement's own cost as a share of the slow set's time.</param>
/// <param name="EventBasedOnly">The slow threshold is shorter than the sampling interval: sample causes were set aside.</param>
/// <param name="SchedulerRecorded">A kernel sampler recorded the scheduler's switches, so a thread's time without a CPU is known, not guessed.</param>
internal sealed record VerdictSection(
    string? Cause, CauseKind? Kind, double SlowShare, double RestShare, double? Lift, double QueueShare, double MeasurementOverheadShare,
    bool EventBasedOnly, LatencyBasis Basis, double CpuWaitShare = 0, double QueuedBehindShare = 0, double LateWakeShare = 0, bool SchedulerRecorded = false);

/// <param name="Kind">"binary" (every value 0 or 1, e.g. hit) or "numeric".</param>
internal sealed record PayloadRow(
    string Activity, string Field, string Kind, long Requests, double SlowMean, double RestMean, double? Correlation, string Finding);

internal sealed record SlowestReport(
    string Report, int SchemaVersion, TraceSection Trace, PopulationSection Population, IReadOnlyList<CauseRow> Causes,
    ProfileSection Profile, IReadOnlyList<SlowRequestRow> Slowest, string Verdict, IReadOnlyList<PayloadRow> Payload,
    IReadOnlyList<string> Notes, VerdictSection? VerdictDetail = null)
{
    /// <summary>2: response time (basis, range, queue/service split), typed verdict, measurement overhead.</summary>
    public const int CurrentSchemaVersion = 2;
}

internal sealed record GcStats(
    IReadOnlyList<long> CountByGeneration, long Pauses, double PauseP50Ms, double PauseP99Ms, double PauseMaxMs, double TotalPauseMs,
    double PausedShare, long OtherSuspensions, double OtherSuspendedMs, double OtherSuspendedShare);

internal sealed record SummaryReport(
    string Report, int SchemaVersion, TraceSection Trace, IReadOnlyList<ActivityStats> Activities, IReadOnlyList<NestedStats> Nested,
    GcStats Gc, IReadOnlyList<string> Notes);
