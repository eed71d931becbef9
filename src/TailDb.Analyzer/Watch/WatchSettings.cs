using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Watch;

/// <summary>What fires a capture.</summary>
internal enum TriggerKind
{
    /// <summary>A request at least --threshold-ms long.</summary>
    Threshold,

    /// <summary>A request longer than --over-p99 times the rolling p99.</summary>
    OverP99,

    /// <summary>A GC pause (suspension start to restart end) at least --gc-pause-ms long.</summary>
    GcPause,
}

/// <param name="MinRequestsForP99">--over-p99 waits for this many requests in the rolling minute: a p99 of a handful is noise.</param>
internal sealed record TriggerSettings(double? ThresholdMs, double? OverP99, double? GcPauseMs, int MinRequestsForP99 = 1000);

/// <param name="Margin">Event time kept after the trigger's end before the capture is written.</param>
/// <param name="MaxCaptures">Captures written at most; later triggers are counted as skipped.</param>
/// <param name="Cooldown">Event time after a capture's trigger during which further triggers are skipped.</param>
/// <param name="Sampler">What takes the CPU samples: perf as a flight recorder beside the ring, EventPipe's sample profiler in the ring, or none.</param>
internal sealed record WatchSettings(
    RequestSelection Selection, RingLimits Ring, TriggerSettings Triggers, TimeSpan Margin, int MaxCaptures, TimeSpan Cooldown,
    string CaptureDirectory, SamplerChoice Sampler, IReadOnlyList<string> ExtraProviders)
{
    public static readonly TimeSpan DefaultReportTimeout = TimeSpan.FromMinutes(10);

    /// <summary>
    /// What the watch process needs beyond --max-bytes (docs/watch.md, "Memory"): the runtime, the
    /// session's reader, the online pairing, a capture being written. Its reports run in child processes.
    /// </summary>
    public const long MemoryConstantBytes = 128L << 20;

    /// <summary>How long a capture's report (a child process) may run before it is killed and the verdict says so.</summary>
    public TimeSpan ReportTimeout { get; init; } = DefaultReportTimeout;

    /// <summary>perf's ring per CPU with <see cref="SamplerKind.Perf"/> (--perf-ring-mb); by default sized from the window.</summary>
    public PerfRing? PerfRingOverride { get; init; }

    public PerfRing PerfRing => PerfRingOverride ?? PerfRing.ForWindow(Ring.Window);
}

/// <summary>One trigger: a slow request (or a GC pause) and why it fired.</summary>
internal sealed record Trigger(TriggerKind Kind, string Activity, long StartTimestamp, long StopTimestamp, double StartMSec, double DurationMSec, string Reason);
