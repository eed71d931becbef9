using TailDb.LoadTest.Reporting;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Harness;

/// <summary>
/// The parent process: runs each GC mode's worker in turn on the identical workload, records a
/// trace per mode if asked, checks each worker got the GC its file asked for, and reports. One
/// stage a file: Plan (what will run, checked first), Launch (a worker or a server under its GC
/// mode, with its recorders), Run (the runs, each worker watched to its end), Collect (each
/// worker's result, traces and truth file), Report (--out, --report, the problems, the exit code).
/// </summary>
public sealed partial class LoadTestHarness
{
    private static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(20);
    private static readonly TimeSpan TraceDrain = TimeSpan.FromSeconds(60);

    /// <summary>A JIT-heavy start on a saturated shared machine can take this long to reach the port.</summary>
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(60);

    private readonly HarnessOptions _options;
    private readonly TextWriter _out;
    private readonly TextWriter _error;
    private readonly ProgressLine? _progress;
    private SamplerChoice _sampler = new(SamplerKind.Off, "no --trace", 0);

    /// <summary>
    /// The client worker's trace against a TailDb server has no sampler: a networked request leaves
    /// its load thread at the send, so the load thread's samples and sleep (the scheduler's view)
    /// would be charged to requests that were waiting on the network. Its activities say where they waited.
    /// </summary>
    private static readonly SamplerChoice ClientSampler = new(SamplerKind.Off, "the client's trace against a server: its requests are activities across threads", 0);

    public LoadTestHarness(HarnessOptions options, TextWriter output, TextWriter error, bool showProgress)
    {
        _options = options;
        _out = output;
        _error = error;
        _progress = showProgress ? new ProgressLine(error) : null;
    }

    public async Task<ExitCode> RunAsync(CancellationToken cancellationToken)
    {
        HarnessPlan plan = Plan();
        List<ModeReport> reports = await RunAllAsync(plan, cancellationToken).ConfigureAwait(false);
        ListOutputs(plan, reports);
        return Report(plan, reports, cancellationToken);
    }

    /// <summary>The GC mode of the client worker when --gc goes to the TailDb server.</summary>
    public const string ClientModeName = "workstation";
}
