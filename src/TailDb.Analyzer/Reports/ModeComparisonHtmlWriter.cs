using System.Text.Json;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Pictures;
using static TailDb.Analyzer.Reports.HtmlParts;

namespace TailDb.Analyzer.Reports;

/// <summary>
/// The page the load test's --report writes beside each mode's slowest page: every mode's verdict, a link to its
/// page, every timeline on one shared scale (timeline.js and compare.js, as on the compare page), the
/// percentiles with each one's ratio to the baseline mode, and each cause's slow share per mode.
/// Self-contained, as every page the analyzer writes.
/// </summary>
/// <param name="timelines">Each mode's timeline by label; a mode without one (no analysis) draws none.</param>
internal sealed class ModeComparisonHtmlWriter(IReadOnlyDictionary<string, TimelinePicture> timelines) : IReportWriter<ModeComparisonReport>
{
    private static readonly JsonSerializerOptions s_json = new() { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };

    public ReportFormat Format => ReportFormat.Html;

    /// <summary>The key of the i-th mode in the page's data and element ids ("timeline-m0"): labels may hold any character.</summary>
    public static string Key(int index) => "m" + index.ToString(Invariant);

    public void Write(ModeComparisonReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        o.WriteLine("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">");
        o.WriteLine("<title>TailDb load test: modes compared</title>");
        o.WriteLine($"<style>{Asset("report.css")}</style></head><body>");
        o.WriteLine($"<h1>{report.Modes.Count} modes compared: {E(string.Join(", ", report.Modes.Select(m => m.Label)))}</h1>");
        foreach (var mode in report.Modes)
        {
            o.WriteLine($"<p class=\"verdict\"><span class=\"side\">{E(mode.Label)}</span> {E(mode.Problem ?? mode.Verdict)}</p>");
        }

        Table(o, ["mode", "trace", "requests", "slow set", "threshold ms", "range"], report.Modes.Select(TraceRow), "modes");
        var drawn = report.Modes.Select((m, i) => (Mode: m, Key: Key(i))).Where(m => timelines.ContainsKey(m.Mode.Label)).ToList();
        if (drawn.Count > 0)
        {
            WriteTimelines(drawn, o);
        }

        WritePercentiles(report, o);
        WriteCauses(report, o);
        WriteNotes(report, o);
        if (drawn.Count > 0)
        {
            var data = drawn.ToDictionary(m => m.Key, m => timelines[m.Mode.Label]);
            o.WriteLine($"<script type=\"application/json\" id=\"data\">{JsonSerializer.Serialize(data, s_json)}</script>");
            o.WriteLine($"<script>{Asset("timeline.js")}</script>");
            o.WriteLine($"<script>{Asset("compare.js")}</script>");
        }

        o.WriteLine("</body></html>");
    }

    private static string[] TraceRow(ModeColumn m) => m.Problem is { } problem
        ?
        [
            T(m.Label), m.File is null ? "no trace" : FileName(m.File), "", "", "", T(problem),
        ]
        :
        [
            T(m.Label), FileName(m.File!) + (m.Page is null ? "" : $" <a href=\"{E(Uri.EscapeDataString(m.Page))}\">slowest page</a>"),
            T(m.Requests.ToString("N0", Invariant)), T($"{m.Selection}: {m.SlowCount.ToString("N0", Invariant)}"), T(N(m.ThresholdMs)),
            Named(m.Range + (m.Truncation is null ? "" : "; truncated: " + m.Truncation), 60),
        ];

    private static void WriteTimelines(IReadOnlyList<(ModeColumn Mode, string Key)> drawn, TextWriter o)
    {
        o.WriteLine("""
<h2>Timelines, one scale</h2>
<p class="help">Each dot is a request: latency (log scale) against time into its mode's trace; every timeline shares the time and the latency axis.
<span class="k slow"></span>slow set <span class="k rest"></span>other requests <span class="k queued"></span>mostly queued (arrival to start over half its time) <span class="k g0"></span>gen0 <span class="k g1"></span>gen1
<span class="k g2"></span>gen2 GC pause <span class="k susp"></span>runtime suspension (top strip) <span class="k cont"></span>lock contention (bottom strip); black lines: the load test's phases;
<span class="k outside"></span>outside the measured phase (fill, warm-up: its GC pauses are drawn but counted in no table).
Drag across any plot to zoom all of them into a time range, wheel to zoom, shift+drag to pan, double-click to reset.</p>
<div class="toolbar"><button id="reset">whole runs</button></div>
""");
        foreach (var (mode, key) in drawn)
        {
            o.WriteLine($"<h3>{E(mode.Label)}{(mode.Page is null ? "" : $" <a href=\"{E(Uri.EscapeDataString(mode.Page))}\">slowest page</a>")} <span class=\"help\" id=\"range-{key}\"></span></h3>");
            o.WriteLine($"<canvas id=\"timeline-{key}\" height=\"220\"></canvas>");
            o.WriteLine($"<p class=\"help\" id=\"sampling-{key}\"></p>");
        }
    }

    private static void WritePercentiles(ModeComparisonReport report, TextWriter o)
    {
        o.WriteLine("<h2>1. Percentiles</h2>");
        o.WriteLine(report.Baseline is { } baseline
            ? $"<p class=\"help\">Exact percentiles (rank p &times; N rounded half up, as HdrHistogram takes it) in ms, each with its ratio to {E(baseline)}'s (the first mode analyzed; &lsquo;n/a&rsquo; where it has no value to divide by).</p>"
            : "<p class=\"help\">No mode's trace could be analyzed.</p>");
        string[] headers = ["activity", "mode", .. report.Statistics.Select(PercentileComparison.Spell)];
        Table(o, headers, report.Percentiles.Select(r => new[] { T(r.Activity), T(r.Mode) }
            .Concat(r.ValuesMs.Select((v, i) => $"{T(Compared.Ms(v))} <span class=\"ratio{(r.Baseline ? " base" : "")}\">{T(Compared.Ratio(r.Ratios[i]))}</span>"))
            .ToArray()), "mode-percentiles");
    }

    private static void WriteCauses(ModeComparisonReport report, TextWriter o)
    {
        o.WriteLine("<h2>2. Causes</h2>");
        o.WriteLine("<p class=\"help\">Each cause's share of the slow set's time (events per request for event causes) in each mode, and its lift there (slow share &divide; the rest's). "
            + "&lsquo;-&rsquo;: that mode's requests never overlapped the cause. *: the measurement's own cost (sampler suspensions, tracing code, the recording's threads on a CPU), never a verdict.</p>");
        string[] headers = ["cause", "scope", .. report.Modes.Select(m => m.Label)];
        Table(o, headers, report.Causes.Select(c => new[]
        {
            Named((c.Measurement ? "* " : "") + (c.Unit == CauseUnit.Milliseconds ? c.Cause : c.Cause + " (per request)")), T(c.Scope),
        }.Concat(c.Sides.Select(s => s is null ? "-" : $"{T(Compared.Share(s, c.Unit))} <span class=\"ratio\">{T(Compared.Lift(s))}</span>")).ToArray()), "mode-causes");
    }

    private static void WriteNotes(ModeComparisonReport report, TextWriter o)
    {
        var notes = report.Modes.Where(m => m.Truncation is not null).Select(m => $"{m.Label}'s trace is truncated: {m.Truncation}")
            .Concat(report.Modes.Where(m => m.Problem is not null).Select(m => $"{m.Label} has no analysis: {m.Problem}"))
            .ToList();
        if (notes.Count == 0)
        {
            return;
        }

        o.WriteLine("<h2>Notes</h2><ul>");
        foreach (var note in notes)
        {
            o.WriteLine($"<li>{E(note)}</li>");
        }

        o.WriteLine("</ul>");
    }
}
