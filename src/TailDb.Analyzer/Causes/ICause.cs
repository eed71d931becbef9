using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Causes;

/// <summary>
/// One cause of a request's latency, one line of the report: what it is (kind, scope, unit), how
/// far it can be trusted (event-based or inferred from samples; the app's or the measurement's own
/// cost), and how much of one part of one request it covered. <see cref="CauseBase"/> is the
/// usual start; <see cref="CauseRegistry"/> lists them.
/// </summary>
internal interface ICause
{
    string Name { get; }

    CauseKind Kind { get; }

    CauseScope Scope { get; }

    CauseUnit Unit { get; }

    /// <summary>Seen by events with exact times, not inferred from CPU samples.</summary>
    bool IsEventBased { get; }

    /// <summary>The measurement's own cost (sampler suspensions, tracing code, the recording's threads on a CPU): reported apart, never the verdict.</summary>
    bool IsMeasurement { get; }

    /// <summary>A GC pause: what the notes about GCs outside requests and the profile's GC rows look for.</summary>
    bool IsGc { get; }

    /// <summary>The cause this line is a part of, when it is split into several lines (<see cref="CauseGroup"/>).</summary>
    CauseGroup Group { get; }

    /// <summary>Whether the cause shows a thread held (stopped), rather than running its own code.</summary>
    bool ShowsAThreadHeld { get; }

    /// <summary>
    /// How much of [<paramref name="from"/>, <paramref name="to"/>) — the <paramref name="part"/> of
    /// the request — the cause covered, in its <see cref="Unit"/> (milliseconds, or events counted).
    /// Called only with <paramref name="to"/> &gt; <paramref name="from"/>.
    /// </summary>
    double Measure(in RequestRecord request, int requestIndex, RequestPart part, double from, double to);
}
