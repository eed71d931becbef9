using System.CommandLine;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Commands;

/// <summary>
/// `capture-report CAPTURE --trigger-…` (hidden): the `slowest` report of one watch capture, written
/// next to it as .txt and .json, and the capture's verdict as the one line on stdout. `watch` runs it
/// as a child process: the analysis of a capture as large as the ring needs several times the
/// capture's size in memory, which must not count against the watch process's own bound.
/// </summary>
internal static class CaptureReportCommand
{
    public const string Name = ReportChild.CommandName;

    public static readonly Option<TriggerKind> TriggerKindOption = CommonOptions.Choice(
        "--trigger-kind", "What fired the capture.", TriggerKind.Threshold, Enum.GetValues<TriggerKind>());

    public static readonly Option<string> TriggerActivity = new("--trigger-activity") { Description = "The trigger request's activity (stem).", DefaultValueFactory = _ => "" };

    public static readonly Option<double> TriggerStartMs = new("--trigger-start-ms") { Description = "The trigger's start, ms into the session." };

    public static readonly Option<double> TriggerDurationMs = new("--trigger-ms") { Description = "The trigger request's (or GC pause's) duration in ms.", Required = true };

    public static readonly Option<string> TriggerReason = new("--trigger-reason") { Description = "Why the trigger fired, as the live view says it.", DefaultValueFactory = _ => "" };

    public static Command Create()
    {
        var command = new Command(Name, "A watch capture's slowest report (.txt and .json next to it); run by watch in a child process.")
        {
            CommonOptions.Trace, CommonOptions.Provider, CommonOptions.Activity, CommonOptions.ArrivalField,
            TriggerKindOption, TriggerActivity, TriggerStartMs, TriggerDurationMs, TriggerReason,
        };
        command.Hidden = true;
        command.SetAction(parseResult =>
        {
            var duration = parseResult.GetValue(TriggerDurationMs);
            if (duration is < 0 or double.NaN)
            {
                throw new AnalyzerException(ExitCode.BadArguments, $"--trigger-ms must be zero or more, not {duration}");
            }

            var trigger = new Trigger(
                parseResult.GetValue(TriggerKindOption), parseResult.GetValue(TriggerActivity)!, 0, 0,
                parseResult.GetValue(TriggerStartMs), duration, parseResult.GetValue(TriggerReason)!);
            var capture = parseResult.GetValue(CommonOptions.Trace)!;
            var report = CaptureReport.Write(capture.FullName, trigger, CommonOptions.Selection(parseResult));
            Console.Out.WriteLine(CaptureReport.TriggerVerdict(report, trigger));
            return (int)ExitCode.Success;
        });
        return command;
    }
}
