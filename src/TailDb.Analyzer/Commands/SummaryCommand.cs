using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Reports;
using TailDb.Diagnostics;

namespace TailDb.Analyzer.Commands;

/// <summary>`summary trace.nettrace`: percentiles per activity, GC statistics, events lost.</summary>
internal static class SummaryCommand
{
    public static readonly Argument<FileInfo> Trace = new("trace") { Description = "The .nettrace file (.etl on Windows)." };

    public static readonly Option<string> Provider = new("--provider")
    {
        Description = "EventSource whose Start/Stop activities are the requests.",
        DefaultValueFactory = _ => TailDbEventContract.ProviderName,
    };

    public static readonly Option<string[]> Activity = new("--activity") { Description = "Activity names that are requests (repeatable; default Get, Put, Delete)." };

    public static readonly Option<string> Format = new("--format") { Description = "text or json.", DefaultValueFactory = _ => "text" };

    public static readonly Option<FileInfo?> Output = new("--output", "-o") { Description = "Write the report to this file instead of stdout." };

    public sealed record Settings(FileInfo Trace, string Provider, string[] Activities, string Format, FileInfo? Output);

    static SummaryCommand()
    {
        Format.AcceptOnlyFromAmong("text", "json");
    }

    public static Command Create()
    {
        var command = new Command("summary", "Percentiles per activity, GC statistics (count per generation, pauses, share of time paused), events lost.")
        {
            Trace, Provider, Activity, Format, Output,
        };
        command.SetAction(parseResult => Run(new Settings(
            parseResult.GetValue(Trace)!,
            parseResult.GetValue(Provider) ?? TailDbEventContract.ProviderName,
            parseResult.GetValue(Activity) ?? [],
            parseResult.GetValue(Format) ?? "text",
            parseResult.GetValue(Output))));
        return command;
    }

    public static int Run(Settings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var report = SummaryAnalysis.Run(settings.Trace.FullName, SlowestCommand.Selection(settings.Provider, settings.Activities));
        ReportOutput.Write(settings.Output, writer =>
        {
            if (settings.Format == "json")
            {
                JsonReportWriter.Write(report, writer);
            }
            else
            {
                TextReportWriter.Write(report, writer);
            }
        });
        return (int)(report.Trace.Truncation is null ? ExitCode.Success : ExitCode.TruncatedTrace);
    }
}
