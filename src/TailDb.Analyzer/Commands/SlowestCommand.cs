using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Pictures;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Commands;

/// <summary>`slowest trace.nettrace`: the slowest requests and what ran inside their windows.</summary>
internal static class SlowestCommand
{
    public static readonly Option<ReportFormat> Format = CommonOptions.Format(ReportFormat.Text, ReportFormat.Json, ReportFormat.Html);

    /// <param name="StackReader">Which reader reads the samples' stacks, or null for --no-stacks.</param>
    public sealed record Settings(
        FileInfo Trace, double Percent, double? ThresholdMs, RequestSelection Selection, int Top, ReportFormat Format, FileInfo? Output,
        StackReaderKind? StackReader = StackReaderKind.NetTrace, ScopeSettings? Scope = null);

    public static Command Create()
    {
        var command = new Command("slowest", "The slowest requests of a trace and what ran inside their windows: GC, suspensions, contention, JIT, I/O, samples.")
        {
            CommonOptions.Trace, CommonOptions.Percent, CommonOptions.ThresholdMs, CommonOptions.Provider, CommonOptions.Activity, CommonOptions.TraceProcessId, CommonOptions.TraceProcessName,
            CommonOptions.ArrivalField, CommonOptions.Phase, CommonOptions.From, CommonOptions.To,
            CommonOptions.Top, Format, CommonOptions.Output, CommonOptions.NoStacks, CommonOptions.StackReader,
        };
        command.SetAction(parseResult => Run(Bind(parseResult)));
        return command;
    }

    public static Settings Bind(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return new Settings(
            parseResult.GetValue(CommonOptions.Trace)!,
            parseResult.GetValue(CommonOptions.Percent),
            parseResult.GetValue(CommonOptions.ThresholdMs),
            CommonOptions.Selection(parseResult),
            parseResult.GetValue(CommonOptions.Top),
            parseResult.GetValue(Format),
            parseResult.GetValue(CommonOptions.Output),
            parseResult.GetValue(CommonOptions.NoStacks) ? null : parseResult.GetValue(CommonOptions.StackReader),
            CommonOptions.Scope(parseResult));
    }

    /// <summary>--percent and --threshold-ms, for every command that picks a slow set.</summary>
    public static void CheckSlowSet(double percent, double? thresholdMs)
    {
        if (thresholdMs is null && percent is <= 0 or > 100 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--percent must be in (0, 100], not {percent}");
        }

        if (thresholdMs is <= 0 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--threshold-ms must be positive, not {thresholdMs}");
        }
    }

    public static int Run(Settings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        CheckSlowSet(settings.Percent, settings.ThresholdMs);
        if (settings.Top < 0)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--top must be zero or more, not {settings.Top}");
        }

        PictureData? pictures = null;
        var report = SlowestAnalysis.Run(
            new SlowestSettings(settings.Trace.FullName, settings.Selection, settings.Percent, settings.ThresholdMs, settings.Top, settings.Scope),
            settings.StackReader is { } reader ? StackReaders.Create(reader) : null,
            inspect: settings.Format == ReportFormat.Html
                ? (set, samples, scope, threshold) => pictures = PictureBuilder.Build(set, samples, scope, threshold, settings.Top, set.Facts.DurationMSec)
                : null);
        var writer = ReportWriters.For(settings.Format, TextReportWriter.Instance, JsonReportWriter.Instance, new HtmlReportWriter(pictures));
        ReportOutput.Write(settings.Output, output => writer.Write(report, output));
        return (int)(report.Trace.Truncation is null ? ExitCode.Success : ExitCode.TruncatedTrace);
    }
}
