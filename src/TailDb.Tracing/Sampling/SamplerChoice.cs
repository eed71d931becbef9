namespace TailDb.Tracing.Sampling;

/// <summary>The sampler a recording uses and why: every report says both.</summary>
/// <param name="RateHz">Samples per second per CPU (perf) or 1000 / the tick in ms (EventPipe); 0 when off.</param>
public sealed record SamplerChoice(SamplerKind Kind, string Reason, int RateHz)
{
    /// <summary>perf's default: 999 Hz, not 1000, so the samples do not march in step with 1 ms timers.</summary>
    public const int DefaultPerfRateHz = 999;

    /// <summary>The runtime's default EventPipe sampling interval is 1 ms.</summary>
    public const int DefaultEventPipeIntervalMs = 1;

    /// <summary>
    /// The 10.0 runtime reads it at start-up: the EventPipe sample profiler's interval in ms (the
    /// sampler suspends the runtime once per interval, so a longer one costs less and sees less).
    /// </summary>
    public const string EventPipeRateVariable = "DOTNET_EventPipeThreadSamplingRate";

    /// <summary>
    /// Resolves a requested sampler (null: the default) against what this machine allows: perf
    /// where it can run, EventPipe otherwise. An explicit <c>perf</c> that cannot run is an error
    /// (returned as <paramref name="problem"/>), never a silent fallback.
    /// </summary>
    public static SamplerChoice Resolve(SamplerKind? requested, int? rate, out string? problem)
    {
        problem = null;
        var perf = PerfAvailability.Check();
        switch (requested)
        {
            case SamplerKind.Off:
                return new SamplerChoice(SamplerKind.Off, "--sampler off", 0);
            case SamplerKind.EventPipe:
                return EventPipe(rate, "--sampler eventpipe");
            case SamplerKind.Perf when perf.Usable:
                return new SamplerChoice(SamplerKind.Perf, $"--sampler perf ({perf.Detail})", rate ?? DefaultPerfRateHz);
            case SamplerKind.Perf:
                problem = $"--sampler perf: {perf.Detail}";
                return EventPipe(rate, problem);
            default:
                return perf.Usable
                    ? new SamplerChoice(SamplerKind.Perf, $"default: perf can run here ({perf.Detail})", rate ?? DefaultPerfRateHz)
                    : EventPipe(null, $"default: perf cannot run here ({perf.Detail}), so EventPipe's sample profiler");
        }
    }

    private static SamplerChoice EventPipe(int? intervalMs, string reason)
    {
        int interval = Math.Max(1, intervalMs ?? DefaultEventPipeIntervalMs);
        return new SamplerChoice(SamplerKind.EventPipe, reason, 1000 / interval) { EventPipeIntervalMs = interval };
    }

    /// <summary>The EventPipe sampler's interval in ms (only for <see cref="SamplerKind.EventPipe"/>).</summary>
    public int EventPipeIntervalMs { get; init; }

    /// <summary>Sets what the traced process needs for this sampler before it starts.</summary>
    public void Configure(System.Diagnostics.ProcessStartInfo startInfo)
    {
        ArgumentNullException.ThrowIfNull(startInfo);
        switch (Kind)
        {
            case SamplerKind.Perf:
                PerfRecorder.ConfigureTarget(startInfo);
                break;
            case SamplerKind.EventPipe when EventPipeIntervalMs != DefaultEventPipeIntervalMs:
                startInfo.Environment[EventPipeRateVariable] = EventPipeIntervalMs.ToString(System.Globalization.CultureInfo.InvariantCulture);
                break;
        }
    }

    public string Describe() => Kind switch
    {
        SamplerKind.Perf => $"perf at {RateHz} Hz per CPU, with scheduler events ({Reason})",
        SamplerKind.EventPipe => $"EventPipe sample profiler every {EventPipeIntervalMs} ms, suspending the runtime on each tick ({Reason})",
        _ => $"none ({Reason})",
    };
}
