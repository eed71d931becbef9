using TailDb.LoadTest.Recording;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Reporting;

/// <param name="LoadAverage">1-minute load average when the run started (Linux): on a shared
/// machine, other processes' load shows up as tail latency in every mode.</param>
public sealed record MachineInfo(int ProcessorCount, string Os, string Runtime, double? LoadAverage)
{
    public static MachineInfo Current() => new(
        Environment.ProcessorCount,
        System.Runtime.InteropServices.RuntimeInformation.OSDescription,
        Environment.Version.ToString(),
        ReadLoadAverage());

    public string Describe() =>
        $"{ProcessorCount} logical CPUs, {Os}, .NET {Runtime}" + (LoadAverage is { } load ? $", load average {load:0.0}" : "");

    private static double? ReadLoadAverage()
    {
        try
        {
            return File.Exists("/proc/loadavg")
                && double.TryParse(File.ReadAllText("/proc/loadavg").Split(' ')[0], System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double load)
                ? load
                : null;
        }
        catch (IOException)
        {
            return null;
        }
    }
}

/// <param name="Run">Which --repeat run (1-based); every run is kept.</param>
/// <param name="ClientTrace">Against a TailDb server the load test started: the client worker's trace (Trace is the server's).</param>
public sealed record ModeEntry(string Mode, string RuntimeConfig, WorkerResult? Result, TraceSummary? Trace, IReadOnlyList<string> Problems, int Run = 1, string? Truth = null, TraceSummary? ClientTrace = null);

/// <summary>The --out document: the same figures as the table, plus per-kind and uncorrected detail.</summary>
public sealed record RunReport
{
    /// <summary>Latencies are nanoseconds; "corrected" ones are measured from each request's intended start.</summary>
    public string Units { get; init; } = "nanoseconds";
    public required MachineInfo Machine { get; init; }
    public required WorkloadOptions Workload { get; init; }
    public required bool Interrupted { get; init; }

    /// <summary>--repeat: each mode appears once per run, in the order run.</summary>
    public int Runs { get; init; } = 1;
    public required IReadOnlyList<ModeEntry> Modes { get; init; }
}
