using System.Text.Json;
using System.Text.Json.Serialization;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Reporting;

/// <summary>Latency of one op kind (or all), corrected for coordinated omission and not.</summary>
public sealed record KindLatency(string Kind, LatencySummary Corrected, LatencySummary Uncorrected);

/// <summary>GC activity during the measured phase only. Counts are per condemned generation
/// (a gen2 GC is not also counted as gen0/gen1, unlike GC.CollectionCount).</summary>
public sealed record GcActivity(int Gen0, int Gen1, int Gen2, double PauseMilliseconds, long AllocatedBytes)
{
    public int Total => Gen0 + Gen1 + Gen2;
}

/// <summary>What a no-GC-region mode did: the budget, whether the region held, by how much it was short.</summary>
public sealed record NoGcRegionOutcome(long BudgetBytes, bool BudgetFromWorkload, bool Started, bool ActiveAtEnd, string? Error);

/// <summary>
/// What `--compact-every`'s compactions did over the whole run (warm-up included): their count,
/// input bytes, wall time copying and of it waiting for I/O budget, the longest writer-lock hold,
/// and the CPU priorities the copies actually ran at.
/// </summary>
public sealed record CompactionSummary(int Count, long InputBytes, double CopyMilliseconds, double ThrottledMilliseconds, double LongestLockHoldMilliseconds, double LongestSealHoldMilliseconds, IReadOnlyList<string> Priorities);

/// <summary>What a worker measured, sent to the harness as JSON in a file.</summary>
public sealed record WorkerResult
{
    public required string Mode { get; init; }
    public required string RuntimeConfig { get; init; }
    public required GcObservation Gc { get; init; }
    public required WorkloadOptions Workload { get; init; }
    public required double MeasuredSeconds { get; init; }
    public required long Operations { get; init; }
    public required double Throughput { get; init; }

    /// <summary>Open loop: requests due before the end that were never sent because the store fell behind.</summary>
    public required long Backlog { get; init; }
    public required long CorruptReads { get; init; }
    public required bool Interrupted { get; init; }
    public required KindLatency Overall { get; init; }
    public required IReadOnlyList<KindLatency> Kinds { get; init; }
    public required GcActivity GcDuringMeasurement { get; init; }
    public NoGcRegionOutcome? NoGcRegion { get; init; }

    /// <summary>With `--compact-every`, what the compactions did; null otherwise.</summary>
    public CompactionSummary? Compactions { get; init; }

    /// <summary>"in-process", "taildb-server" or "redis://host:port".</summary>
    public string Target { get; init; } = "in-process";

    /// <summary>A networked target's client side: pool, timeouts, retries, failures, queue time; null in-process.</summary>
    public ClientReport? Client { get; init; }

    /// <summary>The worker's phases on the Stopwatch clock (networked runs), so a server's trace can be cut to the measured phase.</summary>
    public IReadOnlyList<Tracing.PhaseSpan>? Phases { get; init; }

    /// <summary>The server's GCs during the measured phase, from its INFO (a TailDb server); null when it does not say.</summary>
    public GcActivity? ServerGc { get; init; }

    public static readonly JsonSerializerOptions Json = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        Converters = { new JsonStringEnumConverter(JsonNamingPolicy.KebabCaseLower) },
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };
}
