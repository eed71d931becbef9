using System.CommandLine;
using System.Globalization;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing.Recording;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Commands;

/// <summary>
/// The root command: the harness. Runs the workload under one or more GC modes, each in a worker
/// child process started with that mode's runtimeconfig.
/// </summary>
public static class RunCommand
{
    private static readonly WorkloadOptions Defaults = new();

    internal static readonly Option<string> GcOption = new("--gc")
    {
        Description = "GC mode: workstation, workstation-nonconcurrent, server, server-nodatas, nogc, all, a comma-separated list, or a path to a runtimeconfig .json",
        DefaultValueFactory = _ => "workstation",
    };

    internal static readonly Option<string> RateOption = new("--rate")
    {
        Description = "Requests per second across all threads (open loop, latency from each request's intended start), or 'max' (closed loop, saturation)",
        DefaultValueFactory = _ => Defaults.Rate!.Value.ToString(CultureInfo.InvariantCulture),
    };

    internal static readonly Option<double> DurationOption = new("--duration") { Description = "Measured seconds", DefaultValueFactory = _ => Defaults.DurationSeconds };
    internal static readonly Option<double> WarmupOption = new("--warmup") { Description = "Warm-up seconds before measuring (JIT, cache)", DefaultValueFactory = _ => Defaults.WarmupSeconds };
    internal static readonly Option<int> KeysOption = new("--keys") { Description = "Distinct keys, all written before the warm-up", DefaultValueFactory = _ => Defaults.Keys };
    internal static readonly Option<int> ValueSizeOption = new("--value-size") { Description = "Value bytes", DefaultValueFactory = _ => Defaults.ValueSize };
    internal static readonly Option<int> LargeEveryOption = new("--large-every") { Description = "Every N-th put writes --large-size bytes (0: never)", DefaultValueFactory = _ => Defaults.LargeEvery };
    internal static readonly Option<int> LargeSizeOption = new("--large-size") { Description = "Bytes of the occasional large value", DefaultValueFactory = _ => Defaults.LargeSize };
    internal static readonly Option<double> ReadRatioOption = new("--read-ratio") { Description = "Share of requests that are gets (0..1)", DefaultValueFactory = _ => Defaults.ReadRatio };
    internal static readonly Option<double> DeleteFractionOption = new("--delete-fraction") { Description = "Share of the other requests that are deletes (0..1); the rest are puts", DefaultValueFactory = _ => Defaults.DeleteFraction };
    internal static readonly Option<KeyDistribution> DistributionOption = ChoiceOption.Create(
        "--distribution", "Key distribution", KeyDistribution.Uniform, ("uniform", KeyDistribution.Uniform), ("zipf", KeyDistribution.Zipf));
    internal static readonly Option<double> ZipfThetaOption = new("--zipf-theta") { Description = "Zipf skew θ in (0, 1)", DefaultValueFactory = _ => Defaults.ZipfTheta };
    internal static readonly Option<double> CacheFractionOption = new("--cache-fraction") { Description = "Share of the keys that fit in the cache (sets the get miss rate)", DefaultValueFactory = _ => Defaults.CacheFraction };
    internal static readonly Option<int> ThreadsOption = new("--threads") { Description = "Load threads", DefaultValueFactory = _ => Defaults.Threads };
    internal static readonly Option<ReadApi> ApiOption = ChoiceOption.Create(
        "--api", "Read API, TryGet into a reused buffer or Get returning a new array", ReadApi.ZeroCopy, ("zero-copy", ReadApi.ZeroCopy), ("copy", ReadApi.Copy));
    internal static readonly Option<int> AppAllocOption = new("--app-alloc") { Description = "Bytes of garbage the request handler allocates per request", DefaultValueFactory = _ => Defaults.AppAllocBytes };
    internal static readonly Option<Durability> DurabilityOption = ChoiceOption.Create(
        "--durability", "none (process-crash safe) or fsync (group commit)", Durability.None, ("none", Durability.None), ("fsync", Durability.Fsync));
    internal static readonly Option<int> SeedOption = new("--seed") { Description = "Seed for keys, values and the request sequence", DefaultValueFactory = _ => Defaults.Seed };
    internal static readonly Option<double> CompactEveryOption = new("--compact-every") { Description = "Compact the store every N seconds on a thread of its own during warm-up and measurement (0: never)", DefaultValueFactory = _ => Defaults.CompactEverySeconds };
    internal static readonly Option<UpkeepPlacement> UpkeepOption = ChoiceOption.Create(
        "--upkeep", "Where the store evicts and repoints: background (the store) or on-request (the first design, to compare)", UpkeepPlacement.Background,
        ("background", UpkeepPlacement.Background), ("on-request", UpkeepPlacement.OnRequest));
    internal static readonly Option<double> CompactionRateOption = new("--compaction-rate")
    {
        Description = "Compaction's I/O budget in MiB/s, reads and writes together (0: unlimited; not with --upkeep on-request, which never paces)",
        DefaultValueFactory = _ => Defaults.CompactionMiBPerSecond,
    };

    internal static readonly Option<CompactionPriority> CompactionPriorityOption = ChoiceOption.Create(
        "--compaction-priority", "CPU priority of compaction's copy: low (nice 19), idle (SCHED_IDLE) or normal", Defaults.CompactionPriority,
        ("low", CompactionPriority.Low), ("idle", CompactionPriority.Idle), ("normal", CompactionPriority.Normal));

    internal static readonly Option<double> BurstFactorOption = new("--burst-factor")
    {
        Description = "Open loop in bursts: each --burst-period-ms, its requests all fall due in its first 1/N, at N times the mean rate (1: evenly spaced)",
        DefaultValueFactory = _ => Defaults.BurstFactor,
    };

    internal static readonly Option<double> BurstPeriodOption = new("--burst-period-ms") { Description = "How often a burst comes (with --burst-factor)", DefaultValueFactory = _ => Defaults.BurstPeriodMilliseconds };
    internal static readonly Option<long?> NoGcBudgetOption = new("--nogc-budget") { Description = "Bytes for the nogc mode's GC.TryStartNoGCRegion (default: sized from the warm-up)" };
    internal static readonly Option<string?> OutOption = new("--out") { Description = "Write the results as JSON to this file" };
    internal static readonly Option<string?> TraceOption = new("--trace") { Description = "Record an EventPipe trace from the worker's first instruction (.nettrace; with several modes, one file per mode)" };
    internal static readonly Option<DirectoryInfo?> ReportOption = new("--report")
    {
        Description = $"After the runs, write each traced mode's slowest HTML page and DIR/index.html comparing every mode (records the traces into DIR/{HarnessOptions.ReportTraceName} unless --trace says where)",
        HelpName = "DIR",
    };

    internal static readonly Option<SamplerKind?> SamplerOption = ChoiceOption.Create<SamplerKind?>(
        "--sampler", "What takes the trace's CPU samples (default: perf where it can run, else eventpipe). perf samples in the kernel and records the scheduler (root and linux-perf); eventpipe suspends the runtime on every tick",
        null, ("perf", SamplerKind.Perf), ("eventpipe", SamplerKind.EventPipe), ("off", SamplerKind.Off));

    internal static readonly Option<int?> PerfHzOption = new("--perf-hz") { Description = $"--sampler perf: samples per second per CPU [default: {SamplerChoice.DefaultPerfRateHz}]" };
    internal static readonly Option<int?> EventPipeIntervalOption = new("--eventpipe-interval-ms")
    {
        Description = $"--sampler eventpipe: ms between the sample profiler's ticks (each suspends the runtime; sets {SamplerChoice.EventPipeRateVariable}) [default: {SamplerChoice.DefaultEventPipeIntervalMs}]",
    };
    internal static readonly Option<RecordingLevel> TraceLevelOption = ChoiceOption.Create(
        "--trace-level", "What --trace/--report record of each request: requests (the load test's or the server's Request/Command Start/Stop and the store's upkeep, what slowest needs) " +
        "or store (also the store's Get/Put/Delete with their FileRead and Fsync nested; two to four more events a request)",
        RecordingLevel.Requests, ("requests", RecordingLevel.Requests), ("store", RecordingLevel.Store));

    internal static readonly Option<Toggle> EventStacksOption = ChoiceOption.Create(
        "--event-stacks", "Stack of every traced event (off: CPU samples keep theirs; a fraction of the tracing cost)", Toggle.Off, ("off", Toggle.Off), ("on", Toggle.On));

    internal static readonly Option<IReadOnlyList<Injection>> InjectOption = new("--inject")
    {
        Description = $"Produce a known cause during the measured phase and write the requests it slowed to TRACE.truth.json (repeatable): {InjectionParser.Usage}",
        DefaultValueFactory = _ => [],
        CustomParser = ParseInjections,
        Arity = ArgumentArity.ZeroOrMore,
        HelpName = "cause:every=Ns[,...]",
    };

    private static readonly ClientOptions ClientDefaults = new();

    internal static readonly Option<IReadOnlyList<TargetAddress>> TargetOption = new("--target")
    {
        Description = "What to drive: in-process (the store in the worker), taildb-server (a TailDb server the harness starts under each --gc mode), redis://HOST:PORT (any RESP server), or a comma-separated list",
        DefaultValueFactory = _ => [TargetAddress.InProcess],
        CustomParser = ParseTargets,
        HelpName = "in-process|taildb-server|redis://HOST:PORT",
    };

    internal static readonly Option<int> ConnectionsOption = new("--connections") { Description = "Networked target: connections in the pool (a request waits for a free one)", DefaultValueFactory = _ => ClientDefaults.Connections };
    internal static readonly Option<int> PipelineOption = new("--pipeline") { Description = "Networked target: most requests in flight per connection", DefaultValueFactory = _ => ClientDefaults.Pipeline };
    internal static readonly Option<int> TimeoutOption = new("--timeout-ms") { Description = "Networked target: a request unanswered this long is retried on another connection", DefaultValueFactory = _ => ClientDefaults.TimeoutMilliseconds };
    internal static readonly Option<int> RetriesOption = new("--retries") { Description = $"Networked target: retries of a timed-out request (backoff {ClientOptions.BackoffMilliseconds} ms, doubling) before it counts as failed", DefaultValueFactory = _ => ClientDefaults.Retries };

    internal static readonly Option<int> RepeatOption = new("--repeat")
    {
        Description = "Run the modes interleaved (ABCABC...) this many times; print each percentile's median and min-max range",
        DefaultValueFactory = _ => 1,
    };

    public static RootCommand Create()
    {
        var root = new RootCommand("TailDb load test: drives the store under a GC mode chosen from runtimeconfigs/ and prints honest percentiles");
        foreach (Option option in new Option[]
        {
            GcOption, RateOption, DurationOption, WarmupOption, KeysOption, ValueSizeOption, LargeEveryOption, LargeSizeOption,
            ReadRatioOption, DeleteFractionOption, DistributionOption, ZipfThetaOption, CacheFractionOption, ThreadsOption,
            ApiOption, AppAllocOption, DurabilityOption, SeedOption, CompactEveryOption, UpkeepOption, CompactionRateOption, CompactionPriorityOption, BurstFactorOption, BurstPeriodOption, NoGcBudgetOption, OutOption, TraceOption, ReportOption, SamplerOption, PerfHzOption, EventPipeIntervalOption, TraceLevelOption, EventStacksOption, InjectOption, RepeatOption,
            TargetOption, ConnectionsOption, PipelineOption, TimeoutOption, RetriesOption,
        })
        {
            root.Options.Add(option);
        }

        root.SetAction(async (parseResult, cancellationToken) =>
        {
            HarnessOptions options = Bind(parseResult);
            var harness = new LoadTestHarness(options, Console.Out, Console.Error, showProgress: !Console.IsErrorRedirected);
            return (int)await harness.RunAsync(cancellationToken).ConfigureAwait(false);
        });
        return root;
    }

    /// <summary>Turns parsed flags into options; a value out of its set is a one-line error naming the flag.</summary>
    public static HarnessOptions Bind(ParseResult parseResult)
    {
        var workload = new WorkloadOptions
        {
            DurationSeconds = parseResult.GetValue(DurationOption),
            WarmupSeconds = parseResult.GetValue(WarmupOption),
            Rate = ParseRate(parseResult.GetValue(RateOption)!),
            Keys = parseResult.GetValue(KeysOption),
            ValueSize = parseResult.GetValue(ValueSizeOption),
            LargeEvery = parseResult.GetValue(LargeEveryOption),
            LargeSize = parseResult.GetValue(LargeSizeOption),
            ReadRatio = parseResult.GetValue(ReadRatioOption),
            DeleteFraction = parseResult.GetValue(DeleteFractionOption),
            Distribution = parseResult.GetValue(DistributionOption),
            ZipfTheta = parseResult.GetValue(ZipfThetaOption),
            CacheFraction = parseResult.GetValue(CacheFractionOption),
            Threads = parseResult.GetValue(ThreadsOption),
            Api = parseResult.GetValue(ApiOption),
            AppAllocBytes = parseResult.GetValue(AppAllocOption),
            Durability = parseResult.GetValue(DurabilityOption),
            Seed = parseResult.GetValue(SeedOption),
            CompactEverySeconds = parseResult.GetValue(CompactEveryOption),
            Upkeep = parseResult.GetValue(UpkeepOption),
            CompactionMiBPerSecond = parseResult.GetValue(CompactionRateOption),
            CompactionPriority = parseResult.GetValue(CompactionPriorityOption),
            BurstFactor = parseResult.GetValue(BurstFactorOption),
            BurstPeriodMilliseconds = parseResult.GetValue(BurstPeriodOption),
            NoGcBudgetBytes = parseResult.GetValue(NoGcBudgetOption),
        };
        if (workload.Validate() is { } problem)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, problem);
        }

        int repeat = parseResult.GetValue(RepeatOption);
        if (repeat is < 1 or > 100)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"--repeat must be between 1 and 100 (got {repeat})");
        }

        var client = new ClientOptions
        {
            Connections = parseResult.GetValue(ConnectionsOption),
            Pipeline = parseResult.GetValue(PipelineOption),
            TimeoutMilliseconds = parseResult.GetValue(TimeoutOption),
            Retries = parseResult.GetValue(RetriesOption),
        };
        if (client.Validate() is { } clientProblem)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, clientProblem);
        }

        DirectoryInfo? report = parseResult.GetValue(ReportOption);
        return new HarnessOptions
        {
            Targets = parseResult.GetValue(TargetOption) ?? [TargetAddress.InProcess],
            Client = client,
            Injections = parseResult.GetValue(InjectOption) ?? [],
            Repeat = repeat,
            Gc = parseResult.GetValue(GcOption)!,
            Workload = workload,
            OutPath = parseResult.GetValue(OutOption),
            TracePath = parseResult.GetValue(TraceOption) ?? (report is null ? null : Path.Combine(report.FullName, HarnessOptions.ReportTraceName)),
            ReportDirectory = report,
            Sampler = parseResult.GetValue(SamplerOption),
            SamplerRate = SamplerRate(parseResult),
            TraceLevel = parseResult.GetValue(TraceLevelOption),
            EventStacks = parseResult.GetValue(EventStacksOption) == Toggle.On,
        };
    }

    private static List<TargetAddress> ParseTargets(System.CommandLine.Parsing.ArgumentResult result)
    {
        var targets = new List<TargetAddress>();
        foreach (var token in result.Tokens)
        {
            foreach (string part in token.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                if (!TargetAddress.TryParse(part, out TargetAddress? target, out string? problem))
                {
                    result.AddError(problem!);
                    return [];
                }

                if (targets.Contains(target!))
                {
                    result.AddError($"--target {part} given twice");
                    return [];
                }

                targets.Add(target!);
            }
        }

        return targets.Count == 0 ? [TargetAddress.InProcess] : targets;
    }

    private static List<Injection> ParseInjections(System.CommandLine.Parsing.ArgumentResult result)
    {
        var injections = new List<Injection>();
        foreach (var token in result.Tokens)
        {
            if (!InjectionParser.TryParse(token.Value, out Injection? injection, out string? problem))
            {
                result.AddError(problem!);
                return [];
            }

            injections.Add(injection!);
        }

        return injections;
    }

    private static int? SamplerRate(ParseResult parseResult)
    {
        int? hz = parseResult.GetValue(PerfHzOption);
        int? interval = parseResult.GetValue(EventPipeIntervalOption);
        if (hz is <= 0 or > 100_000)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"--perf-hz must be between 1 and 100000 samples per second (got {hz})");
        }

        if (interval is <= 0 or > 10_000)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"--eventpipe-interval-ms must be between 1 and 10000 (got {interval})");
        }

        SamplerKind? sampler = parseResult.GetValue(SamplerOption);
        if ((hz is not null && sampler is SamplerKind.EventPipe or SamplerKind.Off) || (interval is not null && sampler is SamplerKind.Perf or SamplerKind.Off))
        {
            throw new LoadTestException(ExitCode.InvalidArguments, "--perf-hz goes with --sampler perf, --eventpipe-interval-ms with --sampler eventpipe");
        }

        return hz ?? interval;
    }

    private static double? ParseRate(string value)
    {
        if (value.Equals("max", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double rate) || !(rate > 0) || double.IsInfinity(rate))
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"--rate must be a positive number of requests per second or 'max' (got '{value}')");
        }

        return rate;
    }
}
