namespace TailDb.Analyzer.Attribution;

internal enum CauseUnit
{
    Milliseconds,
    Events,
}

/// <summary>Where a cause can touch a request.</summary>
internal enum CauseScope
{
    /// <summary>Stops every thread: counts for every request it overlaps.</summary>
    Process,

    /// <summary>Only on the request's own thread.</summary>
    Thread,

    /// <summary>Nested inside the request (its FileRead, Fsync).</summary>
    Request,
}

/// <summary>What a cause of a slow request is (public: <see cref="Findings.TraceFindings"/> returns it).</summary>
public enum CauseKind
{
    GcPause,
    RuntimeSuspension,

    /// <summary>The sample profiler's own suspensions: the measurement's cost, not the app's.</summary>
    SamplerSuspension,
    Contention,
    Jit,
    ThreadPoolStarvation,
    Exceptions,
    NestedActivity,
    Samples,

    /// <summary>CPU samples in EventSource/EventPipe code: the measurement's cost.</summary>
    TracingSamples,

    /// <summary>The request waited for earlier requests on its own thread to finish (open-loop queueing).</summary>
    EarlierRequests,

    /// <summary>The store's compaction or cache eviction was running (TailDb's upkeep events).</summary>
    StoreUpkeep,

    /// <summary>
    /// A sampler tick waited far longer than usual for a thread to reach a safe point (a thread in
    /// non-interruptible work, or one the OS did not run): every thread stalled, but only because the
    /// sampler suspended them. The measurement's cost, amplified by the app; never the verdict.
    /// </summary>
    SafePointWait,
}

/// <summary>Which part of a request's response time a measurement covers.</summary>
internal enum RequestPart
{
    /// <summary>Arrival to Start: waiting to be served.</summary>
    Queue,

    /// <summary>Start to Stop: being served.</summary>
    Service,
}

internal sealed record CauseDefinition(string Name, CauseScope Scope, CauseUnit Unit, CauseKind Kind)
{
    public bool IsGc => Kind == CauseKind.GcPause;

    /// <summary>The measurement's own cost (sampler suspensions, tracing code): reported apart, never the verdict.</summary>
    public bool IsMeasurement => Kind is CauseKind.SamplerSuspension or CauseKind.TracingSamples or CauseKind.SafePointWait;

    /// <summary>Seen by events with exact times, not inferred from CPU samples.</summary>
    public bool IsEventBased => Kind is not (CauseKind.Samples or CauseKind.TracingSamples);

    public string ScopeName => Scope switch
    {
        CauseScope.Process => "process",
        CauseScope.Thread => "thread",
        _ => "request",
    };

    public string UnitName => Unit == CauseUnit.Milliseconds ? "ms" : "events";
}
