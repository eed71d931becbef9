using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Export;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Commands;

/// <summary>`export trace.nettrace --format chromium|speedscope -o FILE`: the trace as another tool's file, requests and slow set included.</summary>
internal static class ExportCommand
{
    public static readonly Option<ExportFormat> Format = CommonOptions.Choice(
        "--format", "chromium (Chrome trace-event JSON: Perfetto, chrome://tracing) or speedscope.", ExportFormat.Chromium,
        [ExportFormat.Chromium, ExportFormat.Speedscope]);

    public static readonly Option<FileInfo> Output = new("--output", "-o") { Description = "The file to write.", Required = true };

    public sealed record Settings(FileInfo Trace, RequestSelection Selection, double Percent, double? ThresholdMs, ExportFormat Format, FileInfo Output);

    public static Command Create()
    {
        var command = new Command("export", "Write the trace for Perfetto/chrome://tracing (chromium) or speedscope: requests, the slow set, GC pauses, suspensions, samples.")
        {
            CommonOptions.Trace, CommonOptions.Provider, CommonOptions.Activity, CommonOptions.Percent, CommonOptions.ThresholdMs, Format, Output,
        };
        command.SetAction(parseResult => Run(new Settings(
            parseResult.GetValue(CommonOptions.Trace)!, CommonOptions.Selection(parseResult), parseResult.GetValue(CommonOptions.Percent),
            parseResult.GetValue(CommonOptions.ThresholdMs), parseResult.GetValue(Format), parseResult.GetValue(Output)!)));
        return command;
    }

    public static int Run(Settings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (settings.ThresholdMs is null && settings.Percent is <= 0 or > 100 or double.NaN)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--percent must be in (0, 100], not {settings.Percent}");
        }

        ComputerSet? set = null;
        SampleComputer? samples = null;
        AnalysisScope? scope = null;
        var threshold = double.NaN;
        var report = SlowestAnalysis.Run(
            new SlowestSettings(settings.Trace.FullName, settings.Selection, settings.Percent, settings.ThresholdMs, Top: 0),
            new NetTraceStackSampleReader(),
            (s, x, c, t) => (set, samples, scope, threshold) = (s, x, c, t));
        if (settings.Format == ExportFormat.Speedscope && samples is null)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"{settings.Trace.FullName}: no stacks to export to speedscope ({report.Trace.Stacks})");
        }

        try
        {
            using var stream = File.Create(settings.Output.FullName);
            if (settings.Format == ExportFormat.Speedscope)
            {
                SpeedscopeWriter.Write(set!, samples!, scope!, threshold, settings.Trace.Name, stream);
            }
            else
            {
                ChromiumTraceWriter.Write(set!, samples, scope!, threshold, stream);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--output {settings.Output.FullName}: cannot write: {e.Message}", e);
        }

        Console.Error.WriteLine($"wrote {settings.Output.FullName}");
        return (int)(report.Trace.Truncation is null ? ExitCode.Success : ExitCode.TruncatedTrace);
    }
}
