using TailDb.LoadTest.Recording;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;

namespace TailDb.LoadTest.Harness;

/// <summary>A problem found with one mode's run; the run's exit code is the first problem's.</summary>
public sealed record Problem(ExitCode Code, string Message);

/// <summary>One GC mode's outcome: its result (null when the worker failed), trace and problems.</summary>
/// <param name="Run">Which --repeat run (1-based).</param>
/// <param name="TruthPath">The --inject ground truth written beside the trace, if any.</param>
/// <param name="Target">What the run drove; for taildb-server the mode is the server's.</param>
public sealed record ModeReport(GcMode Mode, WorkerResult? Result, TraceSummary? Trace, IReadOnlyList<Problem> Problems, int Run = 1, string? TruthPath = null)
{
    public TargetAddress Target { get; init; } = TargetAddress.InProcess;

    /// <summary>--target taildb-server with --trace: the client worker's own trace (<see cref="HarnessOptions.ClientTracePathFor"/>), beside the server's <see cref="Trace"/>.</summary>
    public TraceSummary? ClientTrace { get; init; }
}
