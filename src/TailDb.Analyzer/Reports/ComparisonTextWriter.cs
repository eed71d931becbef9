using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Comparison;
using TailDb.Cli;

namespace TailDb.Analyzer.Reports;

/// <summary>The terminal form of `compare`: both traces, both verdicts, the percentiles and the causes side by side.</summary>
internal sealed class ComparisonTextWriter : IReportWriter<ComparisonReport>
{
    public static readonly ComparisonTextWriter Instance = new();

    public ReportFormat Format => ReportFormat.Text;

    public void Write(ComparisonReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        o.WriteLine("TailDb.Analyzer compare");
        foreach (var side in new[] { report.A, report.B })
        {
            o.WriteLine($"  {side.Label}: {side.File}");
            o.WriteLine($"     {Counted.Of(side.Requests, "completed request")} ({side.Provider}; {side.Range}); slow set = {side.Selection}: {Counted.Of(side.SlowCount, "request")} >= {Compared.Ms(side.ThresholdMs)} ms");
        }

        o.WriteLine();
        o.WriteLine("VERDICTS");
        o.WriteLine($"  {report.A.Label}: {report.A.Verdict}");
        o.WriteLine($"  {report.B.Label}: {report.B.Verdict}");
        o.WriteLine();
        o.WriteLine($"1. PERCENTILES (ms; {report.A.Label} and {report.B.Label} side by side, {report.B.Label} - {report.A.Label} and {report.B.Label} / {report.A.Label})");
        o.WriteLine($"  {"activity",-16} {"",-6} {report.A.Label,12} {report.B.Label,12} {"delta",12} {"ratio",8}");
        foreach (var row in report.Percentiles)
        {
            o.WriteLine($"  {Clip(row.Activity, 16),-16} {row.Label,-6} {Compared.Ms(row.A),12} {Compared.Ms(row.B),12} {Compared.Delta(row.DeltaMs),12} {Compared.Ratio(row.Ratio),8}");
        }

        o.WriteLine();
        o.WriteLine("2. CAUSES: each cause's share of the slow set's time, and its lift (slow share / the rest's), in each trace");
        o.WriteLine("  change: slow share in percentage points; lift ratio: the lift's B / A. '-': the trace's requests never overlapped the cause");
        o.WriteLine("  *: the measurement's own cost (sampler suspensions, tracing code, the recording's threads on a CPU), never a verdict");
        if (report.Causes.Count == 0)
        {
            o.WriteLine("  (no cause overlaps any request in either trace)");
        }
        else
        {
            var a = report.A.Label;
            var b = report.B.Label;
            o.WriteLine($"  {"cause",-52} {"scope",-8} {a + " slow",9} {b + " slow",9} {"change",10} {a + " lift",9} {b + " lift",9} {$"lift {b}/{a}",9}");
            foreach (var c in report.Causes)
            {
                var name = (c.Measurement ? "* " : "") + (c.Unit == CauseUnit.Milliseconds ? c.Cause : c.Cause + " (per request)");
                o.WriteLine($"  {Clip(name, 52),-52} {c.Scope,-8} {Compared.Share(c.A, c.Unit),9} {Compared.Share(c.B, c.Unit),9} {Compared.Change(c.SlowShareChange, c.Unit),10} {Compared.Lift(c.A),9} {Compared.Lift(c.B),9} {Compared.Ratio(c.LiftRatio),9}");
            }
        }

        if (report.Notes.Count > 0)
        {
            o.WriteLine();
            o.WriteLine("NOTES");
            foreach (var note in report.Notes)
            {
                o.WriteLine($"  - {note}");
            }
        }
    }

    private static string Clip(string s, int width) => s.Length <= width ? s : s[..(width - 1)] + "…";
}
