using TailDb.LoadTest.Recording;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Reporting;

public sealed record MachineInfo(int ProcessorCount, string Os, string Runtime);

public sealed record ModeEntry(string Mode, string RuntimeConfig, WorkerResult? Result, TraceSummary? Trace, IReadOnlyList<string> Problems);

/// <summary>The --out document: the same figures as the table, plus per-kind and uncorrected detail.</summary>
public sealed record RunReport
{
    /// <summary>Latencies are nanoseconds; "corrected" ones are measured from each request's intended start.</summary>
    public string Units { get; init; } = "nanoseconds";
    public required MachineInfo Machine { get; init; }
    public required WorkloadOptions Workload { get; init; }
    public required bool Interrupted { get; init; }
    public required IReadOnlyList<ModeEntry> Modes { get; init; }
}
