using System.CommandLine;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Buckets;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;

namespace TailDb.Analyzer.Commands;

/// <summary>`buckets trace.nettrace`: how far the percentiles a metrics histogram would report are from the exact ones.</summary>
internal static class BucketsCommand
{
    public static readonly Option<ReportFormat> Format = CommonOptions.Format(ReportFormat.Text, ReportFormat.Json);

    public sealed record Settings(FileInfo Trace, RequestSelection Selection, ReportFormat Format, FileInfo? Output);

    public static Command Create()
    {
        var command = new Command("buckets", "Percentiles from the exact durations beside the estimates of exponential buckets (growth 2.0, 1.4, 1.2, 1.1) and OpenTelemetry's default bounds, with each one's error.")
        {
            CommonOptions.Trace, CommonOptions.Provider, CommonOptions.Activity, Format, CommonOptions.Output,
        };
        command.SetAction(parseResult => Run(new Settings(
            parseResult.GetValue(CommonOptions.Trace)!, CommonOptions.Selection(parseResult), parseResult.GetValue(Format), parseResult.GetValue(CommonOptions.Output))));
        return command;
    }

    public static int Run(Settings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var (report, truncated) = BucketReport.Read(settings.Trace.FullName, settings.Selection);
        var writer = ReportWriters.For<BucketReport>(settings.Format, BucketTextWriter.Instance, JsonReportWriter.Instance);
        ReportOutput.Write(settings.Output, output => writer.Write(report, output));
        return (int)(truncated ? ExitCode.TruncatedTrace : ExitCode.Success);
    }
}
