using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Stacks;
using TailDb.Diagnostics;

namespace TailDb.Analyzer.Commands;

/// <summary>`slowest trace.nettrace`: the slowest requests and what ran inside their windows.</summary>
internal static class SlowestCommand
{
    public static readonly Argument<FileInfo> Trace = new("trace") { Description = "The .nettrace file (.etl on Windows)." };

    public static readonly Option<double> Percent = new("--percent")
    {
        Description = "The slow set is this slowest percentage of requests.",
        DefaultValueFactory = _ => 1.0,
    };

    public static readonly Option<double?> ThresholdMs = new("--threshold-ms") { Description = "The slow set is every request at least this long (overrides --percent)." };

    public static readonly Option<string> Provider = new("--provider")
    {
        Description = "EventSource whose Start/Stop activities are the requests.",
        DefaultValueFactory = _ => TailDbEventContract.ProviderName,
    };

    public static readonly Option<string[]> Activity = new("--activity")
    {
        Description = "Activity (task) names that are requests, e.g. Request for Microsoft.AspNetCore.Hosting (repeatable; default Get, Put, Delete).",
    };

    public static readonly Option<int> Top = new("--top") { Description = "How many of the slowest requests to list.", DefaultValueFactory = _ => 10 };

    public static readonly Option<string> Format = new("--format") { Description = "text, json or html.", DefaultValueFactory = _ => "text" };

    public static readonly Option<FileInfo?> Output = new("--output", "-o") { Description = "Write the report to this file instead of stdout." };

    public static readonly Option<bool> NoStacks = new("--no-stacks") { Description = "Skip reading the samples' stacks (faster; no frames, no sample causes)." };

    public static readonly Option<string> StackReader = new("--stack-reader")
    {
        Description = "nettrace (streaming, default) or tracelog (TraceEvent's ETLX conversion: slow, the cross-check).",
        DefaultValueFactory = _ => "nettrace",
    };

    public sealed record Settings(
        FileInfo Trace, double Percent, double? ThresholdMs, RequestSelection Selection, int Top, string Format, FileInfo? Output, bool Stacks,
        string StackReader = "nettrace");

    static SlowestCommand()
    {
        Format.AcceptOnlyFromAmong("text", "json", "html");
        StackReader.AcceptOnlyFromAmong("nettrace", "tracelog");
    }

    /// <param name="stackReader">Makes the reader named by --stack-reader.</param>
    public static Command Create(Func<string, IStackSampleReader> stackReader)
    {
        var command = new Command("slowest", "The slowest requests of a trace and what ran inside their windows: GC, suspensions, contention, JIT, I/O, samples.")
        {
            Trace, Percent, ThresholdMs, Provider, Activity, Top, Format, Output, NoStacks, StackReader,
        };
        command.SetAction(parseResult => Run(Bind(parseResult), stackReader));
        return command;
    }

    public static Settings Bind(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return new Settings(
            parseResult.GetValue(Trace)!,
            parseResult.GetValue(Percent),
            parseResult.GetValue(ThresholdMs),
            Selection(parseResult.GetValue(Provider), parseResult.GetValue(Activity)),
            parseResult.GetValue(Top),
            parseResult.GetValue(Format) ?? "text",
            parseResult.GetValue(Output),
            !parseResult.GetValue(NoStacks),
            parseResult.GetValue(StackReader) ?? "nettrace");
    }

    public static RequestSelection Selection(string? provider, string[]? activities)
    {
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

    public static int Run(Settings settings, Func<string, IStackSampleReader> stackReader)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(stackReader);
        if (settings.ThresholdMs is null && settings.Percent is <= 0 or > 100 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--percent must be in (0, 100], not {settings.Percent}");
        }

        if (settings.ThresholdMs is <= 0 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--threshold-ms must be positive, not {settings.ThresholdMs}");
        }

        if (settings.Top < 0)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--top must be zero or more, not {settings.Top}");
        }

        var report = SlowestAnalysis.Run(
            new SlowestSettings(settings.Trace.FullName, settings.Selection, settings.Percent, settings.ThresholdMs, settings.Top),
            settings.Stacks ? stackReader(settings.StackReader) : null);
        ReportOutput.Write(settings.Output, writer =>
        {
            switch (settings.Format)
            {
                case "json":
                    JsonReportWriter.Write(report, writer);
                    break;
                case "html":
                    HtmlReportWriter.Write(report, writer);
                    break;
                default:
                    TextReportWriter.Write(report, writer);
                    break;
            }
        });
        return (int)(report.Trace.Truncation is null ? ExitCode.Success : ExitCode.TruncatedTrace);
    }
}
