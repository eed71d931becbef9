using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;

namespace TailDb.Analyzer.Commands;

/// <summary>`summary trace.nettrace`: percentiles per activity, GC statistics, events lost.</summary>
internal static class SummaryCommand
{
    public static readonly Option<ReportFormat> Format = CommonOptions.Format(ReportFormat.Text, ReportFormat.Json);

    public sealed record Settings(FileInfo Trace, RequestSelection Selection, ReportFormat Format, FileInfo? Output, ScopeSettings? Scope = null);

    public static Command Create()
    {
        var command = new Command("summary", "Percentiles per activity, GC statistics (count per generation, pauses, share of time paused), events lost.")
        {
            CommonOptions.Trace, CommonOptions.Provider, CommonOptions.Activity, CommonOptions.TraceProcessId, CommonOptions.TraceProcessName, CommonOptions.ArrivalField,
            CommonOptions.Phase, CommonOptions.From, CommonOptions.To, Format, CommonOptions.Output,
        };
        command.SetAction(parseResult => Run(new Settings(
            parseResult.GetValue(CommonOptions.Trace)!,
            CommonOptions.Selection(parseResult),
            parseResult.GetValue(Format),
            parseResult.GetValue(CommonOptions.Output),
            CommonOptions.Scope(parseResult))));
        return command;
    }

    public static int Run(Settings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var report = SummaryAnalysis.Run(settings.Trace.FullName, settings.Selection, settings.Scope);
        var writer = ReportWriters.For<SummaryReport>(settings.Format, TextReportWriter.Instance, JsonReportWriter.Instance);
        ReportOutput.Write(settings.Output, output => writer.Write(report, output));
        return (int)(report.Trace.Truncation is null ? ExitCode.Success : ExitCode.TruncatedTrace);
    }
}
