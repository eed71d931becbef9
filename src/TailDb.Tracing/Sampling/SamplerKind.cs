namespace TailDb.Tracing.Sampling;

/// <summary>What takes a recording's CPU samples.</summary>
public enum SamplerKind
{
    /// <summary>
    /// Linux <c>perf</c> beside the EventPipe session: samples in the kernel (the runtime never
    /// stops for them) and records the scheduler's switches and wake-ups, so a thread with no CPU
    /// is seen as such. Needs root or CAP_PERFMON and the perf tool.
    /// </summary>
    Perf,

    /// <summary>
    /// EventPipe's sample profiler: works everywhere .NET runs, but suspends the whole runtime on
    /// every tick (the measurement's own cost, which the analyzer reports apart).
    /// </summary>
    EventPipe,

    /// <summary>No CPU samples: the runtime's events and the requests only.</summary>
    Off,
}
