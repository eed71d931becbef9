using System.Globalization;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// The `slowest` report of one capture, next to it (.txt and .json): the slow set is every request
/// at least as long as the trigger (a GC-pause trigger: the slowest 1%), and the trigger request is
/// listed first. Runs in the `capture-report` child process (<see cref="ReportChild"/>).
/// </summary>
internal static class CaptureReport
{
    private static readonly ScopeSettings WholeWindow = new(PhaseChoice.All);

    /// <param name="TriggerFields">The trigger request's Start payload ("method=GET path=/work/30"), when found.</param>
    public sealed record Written(SlowestReport Report, string? TriggerFields);

    public static Written Write(string capturePath, Trigger trigger, RequestSelection selection)
    {
        ArgumentNullException.ThrowIfNull(trigger);
        double? threshold = trigger.Kind == TriggerKind.GcPause ? null : trigger.DurationMSec * 0.999;
        // Every request of the window, whatever phase a load test marked: `slowest`'s default (the measured
        // phase) fails on a capture taken during the fill, and would leave out a trigger in the warm-up.
        var report = SlowestAnalysis.Run(new SlowestSettings(capturePath, selection, 1, threshold, 10, WholeWindow), new NetTraceStackSampleReader());
        report = TriggerFirst(report, trigger);
        string? fields = null;
        if (report.Slowest.Count > 0 && trigger.Kind != TriggerKind.GcPause)
        {
            fields = TriggerPayload.Describe(capturePath, selection, trigger.Activity, report.Slowest[0].StartMs);
        }

        if (fields is not null)
        {
            var row = report.Slowest[0];
            report = report with
            {
                Notes = [string.Create(CultureInfo.InvariantCulture, $"Trigger request: {row.Activity} at {row.StartMs:0.###} ms, {row.DurationMs:0.###} ms ({trigger.Reason}); its Start payload: {fields}"), .. report.Notes],
            };
        }

        var stem = Path.ChangeExtension(capturePath, null);
        WriteWhole(stem + ".txt", writer => TextReportWriter.Write(report, writer));
        WriteWhole(stem + ".json", writer => JsonReportWriter.Write(report, writer));
        return new Written(report, fields);
    }

    /// <summary>
    /// One line: the cause the report names for the trigger request, with its Start payload (an ASP.NET Core request's
    /// method and path), then the report's verdict on the whole slow set of the window.
    /// </summary>
    public static string TriggerVerdict(Written written, Trigger trigger)
    {
        ArgumentNullException.ThrowIfNull(written);
        ArgumentNullException.ThrowIfNull(trigger);
        var report = written.Report;
        if (trigger.Kind == TriggerKind.GcPause || report.Slowest.Count == 0)
        {
            return report.Verdict.ReplaceLineEndings(" ");
        }

        // The cause the report names for the row (RequestBlame), not its largest raw overlap: a
        // sampler's own suspension or app-code samples no ordinary request lacks can overlap more.
        var row = report.Slowest[0];
        var top = row.Named;
        var request = written.TriggerFields is { } fields ? $"the trigger request ({fields})" : "the trigger request";
        var own = top is null
            ? $"no recorded cause explains {request}"
            : string.Create(CultureInfo.InvariantCulture, $"{top.Value / row.DurationMs:0%} of {request} in {top.Cause}");
        return $"{own}; window: {report.Verdict}".ReplaceLineEndings(" ");
    }

    /// <summary>The row whose activity and duration are the trigger's moves to rank 1.</summary>
    private static SlowestReport TriggerFirst(SlowestReport report, Trigger trigger)
    {
        var rows = report.Slowest.ToList();
        var at = rows.FindIndex(r => string.Equals(RequestSelection.Stem(r.Activity), trigger.Activity, StringComparison.OrdinalIgnoreCase)
            && Math.Abs(r.DurationMs - trigger.DurationMSec) < 0.01 + (trigger.DurationMSec * 1e-4));
        if (at <= 0)
        {
            return report;
        }

        var row = rows[at];
        rows.RemoveAt(at);
        rows.Insert(0, row);
        return report with { Slowest = [.. rows.Select((r, i) => r with { Rank = i + 1 })] };
    }

    private static void WriteWhole(string path, Action<TextWriter> render)
    {
        using var writer = new StringWriter();
        render(writer);
        var temporary = path + ".partial";
        File.WriteAllText(temporary, writer.ToString());
        File.Move(temporary, path, overwrite: true);
    }
}
