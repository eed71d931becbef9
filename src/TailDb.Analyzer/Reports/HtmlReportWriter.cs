using System.Net;
using System.Text.Json;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Pictures;
using static TailDb.Analyzer.Reports.HtmlParts;

namespace TailDb.Analyzer.Reports;

/// <summary>
/// One self-contained HTML page of the `slowest` report: the text report's tables, and, when the
/// analysis handed over <see cref="PictureData"/>, a canvas timeline, heatmap, flame graphs and one
/// view per listed slow request drawn by inline script. Nothing is fetched: CSS, script and data are inline.
/// </summary>
internal sealed class HtmlReportWriter(PictureData? pictures) : IReportWriter<SlowestReport>
{
    private static readonly JsonSerializerOptions s_json = new() { PropertyNamingPolicy = JsonNamingPolicy.CamelCase, MaxDepth = 2048 }; // flame trees nest two levels a frame

    public ReportFormat Format => ReportFormat.Html;

    public void Write(SlowestReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        o.WriteLine("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">");
        o.WriteLine("<title>TailDb.Analyzer slowest</title>");
        o.WriteLine($"<style>{Asset("report.css")}</style></head><body>");
        o.WriteLine($"<h1>Slowest requests: <span class=\"file\">{E(report.Trace.File)}</span></h1>");
        o.WriteLine($"<p class=\"verdict\">{E(report.Verdict)}</p>");
        var p = report.Population;
        o.WriteLine($"<p>{report.Trace.Bytes:N0} bytes, {N(report.Trace.DurationMs)} ms, {report.Trace.Events:N0} events, events lost {report.Trace.EventsLost:N0}{(report.Trace.Truncation is null ? "" : ", truncated: " + E(report.Trace.Truncation))}. Paired by {E(report.Trace.Pairing)}. Sampling interval {(report.Trace.SamplingIntervalMs is { } i ? N(i) + " ms" : "n/a")}. Slow set: {E(p.Selection)}, {p.SlowCount:N0} requests &ge; {N(p.ThresholdMs)} ms.</p>");
        if (pictures is not null)
        {
            WritePictures(o);
        }

        WriteTables(report, o);
        if (pictures is not null)
        {
            o.WriteLine($"<script type=\"application/json\" id=\"data\">{JsonSerializer.Serialize(pictures, s_json)}</script>");
            o.WriteLine($"<script>{Asset("timeline.js")}</script>");
            o.WriteLine($"<script>{Asset("report.js")}</script>");
        }

        o.WriteLine("</body></html>");
    }

    private static void WritePictures(TextWriter o)
    {
        o.WriteLine("""
<h2>Timeline</h2>
<p class="help">Each dot is a request: latency (log scale) against start time. <span class="k slow"></span>slow set
<span class="k rest"></span>other requests <span class="k queued"></span>mostly queued (arrival to start over half its time) <span class="k g0"></span>gen0 <span class="k g1"></span>gen1 <span class="k g2"></span>gen2 GC pause
<span class="k susp"></span>runtime suspension (top strip) <span class="k cont"></span>lock contention (bottom strip); black lines: the load test's phases; <span class="k outside"></span>outside the measured phase (fill, warm-up: the tables leave it out unless --phase all or --from/--to).
Drag across the plot to zoom into a time range (down to 1 ms), wheel to zoom, shift+drag to pan, double-click to reset.</p>
<div class="toolbar"><button id="reset">whole run</button> <span id="range"></span></div>
<canvas id="timeline" height="360"></canvas>
<p class="help" id="sampling"></p>
<h2>Heatmap</h2>
<p class="help">Every request counted: time slices across, log latency up; darker = more requests. The line marks the slow threshold.</p>
<canvas id="heatmap" height="260"></canvas>
<h2>Flame graphs</h2>
<p class="help" id="flamebasis"></p>
<div class="toolbar"><button data-flame="slow" class="on">slow windows</button><button data-flame="whole">whole run</button><button data-flame="diff">differential</button>
<span id="flamelegend"></span></div>
<div id="flame"></div>
<h2>The slowest requests, one by one</h2>
<p class="help">Each request's window &plusmn; a few ms: the request bar, GC pauses and suspensions, contention and file reads on its thread, and the sampler's ticks on its thread (hover for the top frame).</p>
<div id="views"></div>
""");
    }

    private static void WriteTables(SlowestReport report, TextWriter o)
    {
        var p = report.Population;
        o.WriteLine("<h2>1. Population</h2>");
        Table(o, ["activity", "count", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "unpaired start/stop"],
            p.Activities.Select(a => new[] { T(a.Name), T(a.Count.ToString("N0", Invariant)), T(N(a.P50Ms)), T(N(a.P90Ms)), T(N(a.P99Ms)), T(N(a.P999Ms)), T(N(a.MaxMs)), T($"{a.UnpairedStarts}/{a.UnpairedStops}") }));
        o.WriteLine("<h2>2. Causes, slow set vs the rest</h2>");
        o.WriteLine("<p class=\"help\">Causes overlap one another, so a column can add up to more than 100%.</p>");
        Table(o, ["cause", "scope", "slow", "rest", "lift"],
            report.Causes.Select(c => new[] { T(c.Cause), T(c.Scope), T(Share(c.SlowShare, c.Unit)), T(Share(c.RestShare, c.Unit)), T(c.LiftText) }), "causes");
        o.WriteLine("<h2>3. Whole run beside the slow windows</h2>");
        o.WriteLine($"<p>Whole run: {E(report.Profile.WholeRunBasis)}</p>");
        Table(o, ["frame", "category", "ms", "share"], report.Profile.WholeRun.Select(f => new[] { Frame(f.Frame), T(f.Category), T(N(f.Ms)), T(Share(f.Share, CauseUnit.Milliseconds)) }), "frames");
        o.WriteLine($"<p>Slow windows: {E(report.Profile.SlowWindowsBasis)}</p>");
        Table(o, ["frame", "category", "ms", "share"], report.Profile.SlowWindows.Select(f => new[] { Frame(f.Frame), T(f.Category), T(N(f.Ms)), T(Share(f.Share, CauseUnit.Milliseconds)) }), "frames");
        o.WriteLine("<h2>4. The slowest requests</h2>");
        Table(o, ["#", "activity", "start ms", "ms", "thread", "fields", "causes", "top frames"],
            report.Slowest.Select(r => new[]
            {
                T(r.Rank.ToString(Invariant)), T(r.Activity), T(N(r.StartMs)), T(N(r.DurationMs)), T(r.ThreadId.ToString(Invariant)),
                T(r.DescribeFields()),
                T(string.Join("; ", r.Causes.Select(c => $"{c.Cause}: {N(c.Value)} {c.Unit.Symbol()}"))),
                string.Join("<br>", r.TopFrames.Select(f => $"{Frame(f.Frame)} {N(f.Ms)} ms")),
            }), "slowest");
        o.WriteLine("<h2>5. Payload correlation</h2>");
        Table(o, ["activity", "field", "kind", "requests", "finding"], report.Payload.Select(r => new[] { T(r.Activity), T(r.Field), T(r.Kind), T(r.Requests.ToString("N0", Invariant)), T(r.Finding) }), "payload");
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
