namespace TailDb.LoadTest;

/// <summary>Process exit codes of the load test (harness and worker).</summary>
public enum ExitCode
{
    Success = 0,

    /// <summary>An unexpected exception (a bug), printed in full with its stack.</summary>
    UnexpectedError = 1,

    /// <summary>A flag is unknown, malformed or out of range.</summary>
    InvalidArguments = 2,

    /// <summary>The GC mode is unknown, or its runtimeconfig is missing or malformed.</summary>
    BadRuntimeConfig = 3,

    /// <summary>The worker ran with a GC other than the runtimeconfig asked for.</summary>
    GcMismatch = 4,

    /// <summary>The worker process crashed, hung or reported an error.</summary>
    WorkerFailed = 5,

    /// <summary>A no-GC mode saw GCs during the measured phase.</summary>
    NoGcRegionViolated = 6,

    /// <summary>An output file or folder (--out, --trace, --report) cannot be written.</summary>
    OutputFailed = 7,

    /// <summary>The trace session could not be started or finished.</summary>
    TraceFailed = 8,

    /// <summary>The crash test found a lost acknowledged write, a value never written, or a corrupt record.</summary>
    CrashTestFailed = 9,

    /// <summary>The --target server cannot be reached (refused, unresolvable, no answer to PING).</summary>
    TargetUnreachable = 10,

    /// <summary>The --target server answered with errors, broke the protocol, or lost every connection.</summary>
    TargetFailed = 11,

    /// <summary>The TailDb server the harness starts (--target taildb-server) did not start, answer or stop.</summary>
    ServerFailed = 12,

    /// <summary>--report: a mode's trace could not be analyzed (its row on the comparison page says why; the other pages were written).</summary>
    ReportFailed = 13,

    /// <summary>Stopped by Ctrl-C or SIGTERM; what was measured was still printed.</summary>
    Interrupted = 130,
}
