using System.CommandLine;
using TailDb.Analyzer.Sources;
using TailDb.Tracing.Sampling;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources.Etw;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Stacks;
using TailDb.Cli;
using TailDb.Tracing;

namespace TailDb.Analyzer.Commands;

/// <summary>
/// The arguments and options commands share (reading a trace, or recording a process), defined once so `slowest`,
/// `summary` and every later command spell, describe, default and validate them alike. A command
/// adds the ones it uses (an option may belong to several commands) and reads them back with
/// <see cref="ParseResult.GetValue{T}(Option{T})"/>; <see cref="Selection(ParseResult)"/> turns
/// --provider/--activity into the requests to analyze.
/// </summary>
internal static class CommonOptions
{
    public static readonly Argument<FileInfo> Trace = new("trace") { Description = "The .nettrace file (.etl on Windows)." };

    public static readonly Option<string?> Provider = new("--provider")
    {
        Description = "EventSource whose Start/Stop activities are the requests (default: the load test's Request in a load test's trace, else TailDb's Get/Put/Delete).",
    };

    public static readonly Option<string> ArrivalField = new("--arrival-field")
    {
        Description = "Start payload field holding a request's arrival as a Stopwatch.GetTimestamp() value; requests with it are ranked by response time (arrival → stop).",
        DefaultValueFactory = _ => LoadTestEventContract.Fields.ArrivalTimestamp,
    };

    public static readonly Option<PhaseChoice> Phase = Choice(
        "--phase",
        "Which phase of a load test's trace to analyze: auto (measured when the trace marks phases, else all), measured, warmup, fill or all.",
        PhaseChoice.Auto,
        [PhaseChoice.Auto, PhaseChoice.Measured, PhaseChoice.Warmup, PhaseChoice.Fill, PhaseChoice.All]);

    public static readonly Option<double?> From = new("--from") { Description = "Analyze requests arriving from this many seconds into the trace (overrides --phase)." };

    public static readonly Option<double?> To = new("--to") { Description = "Analyze requests arriving before this many seconds into the trace (overrides --phase)." };

    public static readonly Option<string[]> Activity = new("--activity")
    {
        Description = "Activity (task) names that are requests, e.g. Request for Microsoft.AspNetCore.Hosting (repeatable; default Get, Put, Delete).",
    };

    public static readonly Option<double> Percent = new("--percent")
    {
        Description = "The slow set is this slowest percentage of requests.",
        DefaultValueFactory = _ => 1.0,
    };

    public static readonly Option<double?> ThresholdMs = new("--threshold-ms") { Description = "The slow set is every request at least this long (overrides --percent)." };

    public static readonly Option<int> Top = new("--top") { Description = "How many of the slowest requests to list.", DefaultValueFactory = _ => 10 };

    public static readonly Option<FileInfo?> Output = new("--output", "-o") { Description = "Write the report to this file instead of stdout." };

    public static readonly Option<int?> ProcessId = new("--pid", "-p") { Description = "Attach to this running .NET process." };

    public static readonly Option<int?> TraceProcessId = new("--pid") { Description = "In a machine-wide ETW trace (.etl, .etl.zip), analyze this process (default: the one with the most requests, else the most GCs)." };

    public static readonly Option<string?> TraceProcessName = new("--process") { Description = "In a machine-wide ETW trace, analyze the process of this name (without .exe)." };

    public static readonly Argument<string[]> LaunchCommand = new("command")
    {
        Description = "After --: the program to launch and record, with its arguments.",
        Arity = ArgumentArity.ZeroOrMore,
    };

    public static readonly Option<bool> NoSamples = new("--no-samples")
    {
        Description = "No CPU samples (the same as --sampler off).",
    };

    public static readonly Option<SamplerKind?> Sampler = new("--sampler")
    {
        Description = "What takes the CPU samples: perf (in the kernel, with the scheduler's switches; root and linux-perf), eventpipe (the runtime's sample profiler, which suspends the runtime on every tick) or off. Default: perf where it can run, else eventpipe.",
        HelpName = "perf|eventpipe|off",
        CustomParser = result =>
        {
            var token = result.Tokens.Count > 0 ? result.Tokens[^1].Value : "";
            SamplerKind? kind = token.ToLowerInvariant() switch
            {
                "perf" => SamplerKind.Perf,
                "eventpipe" => SamplerKind.EventPipe,
                "off" => SamplerKind.Off,
                _ => null,
            };
            if (kind is null)
            {
                result.AddError($"--sampler must be one of perf, eventpipe, off (got '{token}')");
            }

            return kind;
        },
    };

    /// <summary>--sampler, with --no-samples as its short form for off; an explicit perf that cannot run is a one-line error.</summary>
    public static SamplerChoice ResolveSampler(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        var requested = parseResult.GetValue(NoSamples) ? SamplerKind.Off : parseResult.GetValue(Sampler);
        var choice = SamplerChoice.Resolve(requested, null, out var problem);
        return problem is null ? choice : throw new AnalyzerException(ExitCode.BadArguments, problem);
    }

    public static readonly Option<bool> NoStacks = new("--no-stacks") { Description = "Skip reading the samples' stacks (faster; no frames, no sample causes)." };

    public static readonly Option<StackReaderKind> StackReader = Choice(
        "--stack-reader",
        "nettrace (streaming, default) or tracelog (TraceEvent's ETLX conversion: slow, the cross-check).",
        StackReaderKind.NetTrace,
        [StackReaderKind.NetTrace, StackReaderKind.TraceLog]);

    /// <summary>A --format option accepting only the formats the command has writers for.</summary>
    public static Option<ReportFormat> Format(params ReportFormat[] accepted) =>
        Choice("--format", $"{string.Join(", ", accepted.Select(Spell))}.", ReportFormat.Text, accepted);

    /// <summary>The requests to analyze: chosen by the trace by default, or the named activities of --provider.</summary>
    public static RequestSelection Selection(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        // Commands without --arrival-field (watch) keep the convention's name.
        var arrival = parseResult.GetResult(ArrivalField) is null ? LoadTestEventContract.Fields.ArrivalTimestamp : parseResult.GetValue(ArrivalField);
        if (string.IsNullOrWhiteSpace(arrival))
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--arrival-field must name a payload field");
        }

        var process = new ProcessChoice(
            parseResult.GetResult(TraceProcessId) is null ? null : parseResult.GetValue(TraceProcessId),
            parseResult.GetResult(TraceProcessName) is null ? null : parseResult.GetValue(TraceProcessName));
        if (process.Id is not null && process.Name is not null)
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--pid and --process both choose the process: give one");
        }

        return Selection(parseResult.GetValue(Provider), parseResult.GetValue(Activity)) with { ArrivalField = arrival, Process = process };
    }

    public static RequestSelection Selection(string? provider, string[]? activities)
    {
        if (provider is null && (activities is null || activities.Length == 0))
        {
            return RequestSelection.Default;
        }

        provider ??= TailDbEventContract.ProviderName;
        if (string.IsNullOrWhiteSpace(provider))
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--provider must name an EventSource");
        }

        if (activities is null || activities.Length == 0)
        {
            return string.Equals(provider, TailDbEventContract.ProviderName, StringComparison.OrdinalIgnoreCase)
                ? RequestSelection.TailDb
                : throw new AnalyzerException(ExitCode.BadArguments, $"--provider {provider} needs --activity (the Start/Stop task names that are requests, e.g. Request)");
        }

        return new RequestSelection(provider, activities);
    }

    /// <summary>--phase, --from and --to: which requests an analysis covers.</summary>
    public static ScopeSettings Scope(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        var from = parseResult.GetValue(From);
        var to = parseResult.GetValue(To);
        if (from is < 0 or double.NaN || to is < 0 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, "--from and --to are seconds into the trace, zero or more");
        }

        return new ScopeSettings(parseResult.GetValue(Phase), from, to);
    }

    /// <summary>The lower-case spelling users type and help shows (System.CommandLine parses enums ignoring case).</summary>
    public static string Spell<T>(T value)
        where T : struct, Enum => EnumSpelling.Spell(value);

    /// <summary>
    /// An enum option limited to <paramref name="accepted"/>, parsed from the lower-case names. Not
    /// System.CommandLine's own enum conversion: it also takes numbers (`--format 7`) and every member
    /// whether or not this command can use it, and its error names the CLR type instead of the choices.
    /// </summary>
    public static Option<T> Choice<T>(string name, string description, T defaultValue, T[] accepted)
        where T : struct, Enum
    {
        var spelled = string.Join("|", accepted.Select(Spell));
        var option = new Option<T>(name)
        {
            Description = description,
            DefaultValueFactory = _ => defaultValue,
            HelpName = spelled,
            CustomParser = result =>
            {
                var token = result.Tokens.Count > 0 ? result.Tokens[^1].Value : "";
                foreach (var value in accepted)
                {
                    if (string.Equals(Spell(value), token, StringComparison.OrdinalIgnoreCase))
                    {
                        return value;
                    }
                }

                result.AddError($"{name} {token} is not one of {spelled}");
                return defaultValue;
            },
        };
        option.CompletionSources.Add(accepted.Select(Spell).ToArray());
        return option;
    }
}
