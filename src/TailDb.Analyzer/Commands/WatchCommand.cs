using System.CommandLine;
using TailDb.Analyzer.Watch;
using TailDb.Tracing.Sampling;

namespace TailDb.Analyzer.Commands;

/// <summary>
/// `watch --pid N` or `watch -- command args`: a flight recorder. One continuous EventPipe session
/// (the providers `record` uses) into a ring of the last --window seconds, requests paired online,
/// and on a trigger (--threshold-ms, --over-p99, --gc-pause-ms) a capture of the window around the
/// slow request with its `slowest` report. The request provider and activities are `slowest`'s options.
/// --sampler as `record` takes it: with perf, perf's own ring runs beside the EventPipe ring and each
/// capture gets its perf file.
/// </summary>
internal static class WatchCommand
{
    public static readonly Option<double> Window = new("--window") { Description = "Seconds of event stream the ring keeps.", DefaultValueFactory = _ => 10 };

    public static readonly Option<long> MaxBytes = new("--max-bytes")
    {
        Description = "Bytes the ring keeps at most (metadata included); the window shrinks to fit. The watch process stays within this plus 128 MiB; capture reports run in child processes.",
        DefaultValueFactory = _ => 64L << 20,
    };

    public static readonly Option<double?> ThresholdMs = new("--threshold-ms") { Description = "Capture a request at least this long (ms)." };

    public static readonly Option<double?> OverP99 = new("--over-p99") { Description = "Capture a request longer than this many times the rolling p99 (last minute)." };

    public static readonly Option<double?> GcPauseMs = new("--gc-pause-ms") { Description = "Capture around a GC pause at least this long (ms)." };

    public static readonly Option<double> MarginMs = new("--margin-ms") { Description = "Event time kept after the trigger's end (ms).", DefaultValueFactory = _ => 500 };

    public static readonly Option<int> MaxCaptures = new("--max-captures") { Description = "Captures written at most; later triggers are skipped and counted.", DefaultValueFactory = _ => 10 };

    public static readonly Option<double> Cooldown = new("--cooldown") { Description = "Seconds after a capture's trigger during which triggers are skipped.", DefaultValueFactory = _ => 30 };

    public static readonly Option<double> ReportTimeout = new("--report-timeout")
    {
        Description = "Seconds a capture's report (a child process) may take; past it the report is killed and the capture's verdict says so.",
        DefaultValueFactory = _ => WatchSettings.DefaultReportTimeout.TotalSeconds,
    };

    public static readonly Option<DirectoryInfo> Captures = new("--captures") { Description = "Where captures and their reports go.", DefaultValueFactory = _ => new DirectoryInfo("captures") };

    public static readonly Option<string?> ProcessName = new("--name", "-n")
    {
        Description = "Attach to the process with this name, and to the next one when it exits (a restart), until Ctrl+C or --duration.",
    };

    public static readonly Option<int?> PerfRingMb = new("--perf-ring-mb")
    {
        Description = "--sampler perf: MiB of perf's ring per CPU (kernel memory, rounded up to a power of two), dumped for each capture. Default: 2 MiB per second of --window, 4-256 MiB.",
    };

    public static readonly Option<double?> Duration = new("--duration") { Description = "Stop after this many seconds (default: target exit, Ctrl+C or SIGTERM)." };

    public static Command Create()
    {
        var command = new Command("watch", "Flight recorder: keep the last seconds of a running process's trace and capture the window around each slow request.")
        {
            CommonOptions.ProcessId, ProcessName, CommonOptions.Provider, CommonOptions.Activity, Window, MaxBytes, ThresholdMs, OverP99, GcPauseMs, MarginMs,
            MaxCaptures, Cooldown, Captures, ReportTimeout, Duration, CommonOptions.Sampler, CommonOptions.NoSamples, PerfRingMb, CommonOptions.LaunchCommand,
        };
        command.SetAction((parseResult, cancellationToken) =>
        {
            var (settings, target, duration) = Bind(parseResult);
            return RunAsync(settings, target, duration, cancellationToken);
        });
        return command;
    }

    public static (WatchSettings Settings, WatchTarget Target, double? Duration) Bind(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        var pid = parseResult.GetValue(CommonOptions.ProcessId);
        var commandLine = parseResult.GetValue(CommonOptions.LaunchCommand) ?? [];
        var processName = parseResult.GetValue(ProcessName);
        if ((pid is null ? 0 : 1) + (commandLine.Length == 0 ? 0 : 1) + (string.IsNullOrWhiteSpace(processName) ? 0 : 1) != 1)
        {
            throw new AnalyzerException(ExitCode.BadArguments, "watch: give one of --pid N, --name NAME or a command after --");
        }

        var triggers = new TriggerSettings(parseResult.GetValue(ThresholdMs), parseResult.GetValue(OverP99), parseResult.GetValue(GcPauseMs));
        if (triggers is { ThresholdMs: null, OverP99: null, GcPauseMs: null })
        {
            throw new AnalyzerException(ExitCode.BadArguments, "watch: give at least one trigger: --threshold-ms, --over-p99 or --gc-pause-ms");
        }

        Positive(triggers.ThresholdMs, "--threshold-ms");
        Positive(triggers.OverP99, "--over-p99");
        Positive(triggers.GcPauseMs, "--gc-pause-ms");
        var window = parseResult.GetValue(Window);
        Positive(window, "--window");
        var maxBytes = parseResult.GetValue(MaxBytes);
        if (maxBytes < 1 << 20)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--max-bytes must be at least 1 MiB (1048576), not {maxBytes}");
        }

        var margin = parseResult.GetValue(MarginMs);
        var maxCaptures = parseResult.GetValue(MaxCaptures);
        var cooldown = parseResult.GetValue(Cooldown);
        if (margin < 0 || maxCaptures < 0 || cooldown < 0)
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--margin-ms, --max-captures and --cooldown must be zero or more");
        }

        var duration = parseResult.GetValue(Duration);
        Positive(duration, "--duration");
        var reportTimeout = parseResult.GetValue(ReportTimeout);
        Positive(reportTimeout, "--report-timeout");
        var (sampler, perfRing) = WatchSampler(parseResult);
        var settings = new WatchSettings(
            CommonOptions.Selection(parseResult),
            new RingLimits(TimeSpan.FromSeconds(window), maxBytes), triggers, TimeSpan.FromMilliseconds(margin), maxCaptures,
            TimeSpan.FromSeconds(cooldown), parseResult.GetValue(Captures)!.FullName, sampler, [])
        {
            ReportTimeout = TimeSpan.FromSeconds(reportTimeout),
            PerfRingOverride = perfRing,
        };
        WatchTarget target = pid is { } p ? new WatchTarget.Attach(p)
            : processName is { Length: > 0 } n ? new WatchTarget.Named(n)
            : new WatchTarget.Launch(commandLine);
        return (settings, target, duration);
    }

    public static async Task<int> RunAsync(WatchSettings settings, WatchTarget target, double? durationSeconds, CancellationToken cancellationToken)
    {
        using var timeout = durationSeconds is { } seconds ? new CancellationTokenSource(TimeSpan.FromSeconds(seconds)) : new CancellationTokenSource();
        using var either = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token, cancellationToken);
        await WatchRunner.RunAsync(settings, target, Console.Out, !Console.IsOutputRedirected, either.Token);
        return (int)ExitCode.Success;
    }

    private static void Positive(double? value, string name)
    {
        if (value is <= 0 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"{name} must be positive, not {value}");
        }
    }

    /// <summary>
    /// The sampler as `record` resolves it (perf where it can run; an explicit perf that cannot is one
    /// line), and perf's ring when it is perf: --perf-ring-mb means nothing to another sampler.
    /// </summary>
    private static (SamplerChoice Sampler, PerfRing? Ring) WatchSampler(ParseResult parseResult)
    {
        var sampler = CommonOptions.ResolveSampler(parseResult);
        if (parseResult.GetValue(PerfRingMb) is not { } mb)
        {
            return (sampler, null);
        }

        if (sampler.Kind != SamplerKind.Perf)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--perf-ring-mb sizes perf's ring, but the sampler is {sampler.Describe()}");
        }

        if (mb is < 1 or > (int)(PerfRing.MaxBytesPerCpu >> 20) * 4)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--perf-ring-mb must be 1 to {(PerfRing.MaxBytesPerCpu >> 20) * 4} (MiB per CPU), not {mb}");
        }

        return (sampler, PerfRing.Of((long)mb << 20));
    }
}
