using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>Everything the user asked of one harness run, bound from the command line.</summary>
public sealed record HarnessOptions
{
    public required string Gc { get; init; }
    public required WorkloadOptions Workload { get; init; }
    public string? OutPath { get; init; }
    public string? TracePath { get; init; }

    /// <summary>--report DIR: each mode's slowest page and one page comparing every mode, written after the runs.</summary>
    public DirectoryInfo? ReportDirectory { get; init; }

    /// <summary>The trace a --report run records when --trace is not given: one per mode, in the report's folder.</summary>
    public const string ReportTraceName = "loadtest.nettrace";

    /// <summary>What takes the trace's CPU samples (--sampler); null: perf where it can run, else EventPipe's sample profiler.</summary>
    public SamplerKind? Sampler { get; init; }

    /// <summary>--perf-hz, or --eventpipe-interval-ms for the EventPipe sampler; null: the sampler's default.</summary>
    public int? SamplerRate { get; init; }

    /// <summary>--trace-level: the load test's (or server's) requests only, what `slowest` needs, or the store's events inside them too.</summary>
    public RecordingLevel TraceLevel { get; init; } = RecordingLevel.Requests;

    /// <summary>Whether the runtime walks the stack of every traced event; the samples keep theirs either way.</summary>
    public bool EventStacks { get; init; }

    /// <summary>Known causes produced during each measured phase (--inject).</summary>
    public IReadOnlyList<Injection> Injections { get; init; } = [];

    /// <summary>How many times the modes run, interleaved (--repeat).</summary>
    public int Repeat { get; init; } = 1;

    /// <summary>What each mode's run drives (--target); several give one row per mode and target.</summary>
    public IReadOnlyList<TargetAddress> Targets { get; init; } = [TargetAddress.InProcess];

    /// <summary>The connection pool for networked targets.</summary>
    public ClientOptions Client { get; init; } = new();

    /// <summary>Folder of named runtimeconfigs; null is the one copied next to the assembly.</summary>
    public string? RuntimeConfigDirectory { get; init; }

    /// <summary>
    /// Against a TailDb server the load test starts, the server records to the mode's trace file and
    /// the client worker to this one beside it: FILE.client.nettrace.
    /// </summary>
    public static string ClientTracePathFor(string serverTracePath)
    {
        string full = Path.GetFullPath(serverTracePath);
        string extension = Path.GetExtension(full) is { Length: > 0 } given ? given : ".nettrace";
        return Path.Combine(Path.GetDirectoryName(full)!, $"{Path.GetFileNameWithoutExtension(full)}.client{extension}");
    }

    /// <summary>The trace file of one mode: the given path when one mode runs, else with the mode as suffix.</summary>
    public static string TracePathFor(string tracePath, string mode, int modeCount) => TracePathFor(tracePath, mode, modeCount, run: 1, runs: 1);

    /// <summary>With --repeat, each run's trace also carries its run number: FILE.mode.run.nettrace.</summary>
    public static string TracePathFor(string tracePath, string mode, int modeCount, int run, int runs, string? target = null)
    {
        if (modeCount == 1 && runs == 1 && target is null)
        {
            return Path.GetFullPath(tracePath);
        }

        string full = Path.GetFullPath(tracePath);
        string extension = Path.GetExtension(full);
        if (extension.Length == 0)
        {
            extension = ".nettrace";
        }

        string suffix = (modeCount > 1 ? $".{mode}" : "") + (target is null ? "" : $".{target}") + (runs > 1 ? $".{run}" : "");
        return Path.Combine(Path.GetDirectoryName(full)!, $"{Path.GetFileNameWithoutExtension(full)}{suffix}{extension}");
    }
}
