using System.Text.Json;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Pictures;
using static TailDb.Analyzer.Reports.HtmlParts;

namespace TailDb.Analyzer.Reports;

/// <summary>
/// One self-contained HTML page of `compare`: both verdicts, both timelines on one shared time and
/// latency scale (timeline.js, the slowest page's own drawing, driven by compare.js), and the
/// percentile and cause tables. Nothing is fetched. Without pictures the page holds the tables only.
/// </summary>
/// <param name="pageA">The relative address of A's own slowest page, when one was written beside this one (likewise B).</param>
internal sealed class ComparisonHtmlWriter(TimelinePicture? a, TimelinePicture? b, string? pageA = null, string? pageB = null) : IReportWriter<ComparisonReport>
{
    private static readonly JsonSerializerOptions s_json = new() { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };

    public ReportFormat Format => ReportFormat.Html;

    public void Write(ComparisonReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        o.WriteLine("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">");
        o.WriteLine("<title>TailDb.Analyzer compare</title>");
        o.WriteLine($"<style>{Asset("report.css")}</style></head><body>");
        o.WriteLine($"<h1>Compare: {E(report.A.Label)} {FileName(report.A.File)} vs {E(report.B.Label)} {FileName(report.B.File)}</h1>");
        foreach (var side in new[] { report.A, report.B })
        {
            o.WriteLine($"<p class=\"verdict\"><span class=\"side\">{E(side.Label)}</span> {E(side.Verdict)}</p>");
        }

        Table(o, ["", "trace", "requests", "slow set", "threshold ms", "range"], [TraceRow(report.A, pageA), TraceRow(report.B, pageB)], "traces");
        if (a is not null && b is not null)
        {
            WriteTimelines(report, o);
        }

        WriteTables(report, o);
        if (a is not null && b is not null)
        {
            o.WriteLine($"<script type=\"application/json\" id=\"data\">{JsonSerializer.Serialize(new { a, b }, s_json)}</script>");
            o.WriteLine($"<script>{Asset("timeline.js")}</script>");
            o.WriteLine($"<script>{Asset("compare.js")}</script>");
        }

        o.WriteLine("</body></html>");
    }

    private static string[] TraceRow(ComparedTrace s, string? page) =>
    [
        T(s.Label), FileName(s.File) + (page is null ? "" : $" <a href=\"{E(Uri.EscapeDataString(page))}\">slowest page</a>"),
        T(s.Requests.ToString("N0", Invariant)), T($"{s.Selection}: {s.SlowCount.ToString("N0", Invariant)}"), T(N(s.ThresholdMs)), Named(s.Range, 60),
    ];

    private static void WriteTimelines(ComparisonReport report, TextWriter o)
    {
        o.WriteLine("""
<h2>Timelines, one scale</h2>
<p class="help">Each dot is a request: latency (log scale) against time into its trace; both timelines share the time and the latency axis.
<span class="k slow"></span>slow set <span class="k rest"></span>other requests <span class="k queued"></span>mostly queued (arrival to start over half its time) <span class="k g0"></span>gen0 <span class="k g1"></span>gen1
<span class="k g2"></span>gen2 GC pause <span class="k susp"></span>runtime suspension (top strip) <span class="k cont"></span>lock contention (bottom strip).
Drag across either plot to zoom both into a time range, wheel to zoom, shift+drag to pan, double-click to reset.</p>
<div class="toolbar"><button id="reset">whole runs</button></div>
""");
        foreach (var (side, key) in new[] { (report.A, "a"), (report.B, "b") })
        {
            o.WriteLine($"<h3>{E(side.Label)}: {FileName(side.File)} <span class=\"help\" id=\"range-{key}\"></span></h3>");
            o.WriteLine($"<canvas id=\"timeline-{key}\" height=\"300\"></canvas>");
            o.WriteLine($"<p class=\"help\" id=\"sampling-{key}\"></p>");
        }
    }

    private static void WriteTables(ComparisonReport report, TextWriter o)
    {
        var (a, b) = (E(report.A.Label), E(report.B.Label));
        o.WriteLine("<h2>1. Percentiles</h2>");
        o.WriteLine($"<p class=\"help\">Exact percentiles (rank p &times; N rounded half up, as HdrHistogram takes it) in ms; delta is {b} &minus; {a}, ratio {b} / {a}.</p>");
        Table(o, ["activity", "", $"{report.A.Label} ms", $"{report.B.Label} ms", "delta ms", "ratio"],
            report.Percentiles.Select(r => new[]
            {
                Named(r.Activity, 32), T(r.Label), T(Compared.Ms(r.A)), T(Compared.Ms(r.B)), T(Compared.Delta(r.DeltaMs)), T(Compared.Ratio(r.Ratio)),
            }), "percentiles");
        o.WriteLine("<h2>2. Causes</h2>");
        o.WriteLine($"<p class=\"help\">Each cause's share of the slow set's time (events per request for event causes) and its lift (slow share &divide; the rest's) in each trace. "
            + $"Change: {b} &minus; {a} in percentage points; lift ratio: {b}'s lift &divide; {a}'s. &lsquo;-&rsquo;: that trace's requests never overlapped the cause. "
            + "*: the measurement's own cost (sampler suspensions, tracing code, the recording's threads on a CPU), never a verdict.</p>");
        var la = report.A.Label;
        var lb = report.B.Label;
        Table(o, ["cause", "scope", $"{la} slow", $"{lb} slow", "change", $"{la} lift", $"{lb} lift", "lift ratio"],
            report.Causes.Select(c => new[]
            {
                Named((c.Measurement ? "* " : "") + (c.Unit == CauseUnit.Milliseconds ? c.Cause : c.Cause + " (per request)")), T(c.Scope), T(Compared.Share(c.A, c.Unit)), T(Compared.Share(c.B, c.Unit)),
                T(Compared.Change(c.SlowShareChange, c.Unit)), T(Compared.Lift(c.A)), T(Compared.Lift(c.B)), T(Compared.Ratio(c.LiftRatio)),
            }), "compare-causes");
        if (report.Notes.Count > 0)
        {
            o.WriteLine("<h2>Notes</h2><ul>");
            foreach (var note in report.Notes)
            {
                o.WriteLine($"<li>{E(note)}</li>");
            }

            o.WriteLine("</ul>");
        }
    }
}
