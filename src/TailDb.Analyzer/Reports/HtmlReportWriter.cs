using System.Globalization;
using System.Net;

namespace TailDb.Analyzer.Reports;

/// <summary>A single self-contained HTML page of the `slowest` report (no scripts, no external assets).</summary>
internal static class HtmlReportWriter
{
    private static readonly CultureInfo s_inv = CultureInfo.InvariantCulture;

    public static void Write(SlowestReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        o.WriteLine("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>TailDb.Analyzer slowest</title>");
        o.WriteLine("<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.verdict{font-size:1.3em;font-weight:bold}</style></head><body>");
        o.WriteLine($"<h1>Slowest requests: {E(report.Trace.File)}</h1>");
        o.WriteLine($"<p class=\"verdict\">{E(report.Verdict)}</p>");
        var p = report.Population;
        o.WriteLine("<h2>1. Population</h2>");
        o.WriteLine($"<p>{report.Trace.Bytes:N0} bytes, {N(report.Trace.DurationMs)} ms, {report.Trace.Events:N0} events, events lost {report.Trace.EventsLost:N0}{(report.Trace.Truncation is null ? "" : ", truncated: " + E(report.Trace.Truncation))}. Paired by {E(report.Trace.Pairing)}. Sampling interval {(report.Trace.SamplingIntervalMs is { } i ? N(i) + " ms" : "n/a")}. Slow set: {E(p.Selection)}, {p.SlowCount:N0} requests &ge; {N(p.ThresholdMs)} ms.</p>");
        Table(o, ["activity", "count", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "unpaired start/stop"],
            p.Activities.Select(a => new[] { a.Name, a.Count.ToString("N0", s_inv), N(a.P50Ms), N(a.P90Ms), N(a.P99Ms), N(a.P999Ms), N(a.MaxMs), $"{a.UnpairedStarts}/{a.UnpairedStops}" }));
        o.WriteLine("<h2>2. Causes, slow set vs the rest</h2>");
        Table(o, ["cause", "scope", "unit", "slow", "rest", "lift"],
            report.Causes.Select(c => new[] { c.Cause, c.Scope, c.Unit, Share(c.SlowShare, c.Unit), Share(c.RestShare, c.Unit), c.LiftText }));
        o.WriteLine("<h2>3. Whole run beside the slow windows</h2>");
        o.WriteLine($"<p>Whole run: {E(report.Profile.WholeRunBasis)}</p>");
        Table(o, ["frame", "category", "ms", "share"], report.Profile.WholeRun.Select(f => new[] { f.Frame, f.Category, N(f.Ms), Share(f.Share, "ms") }));
        o.WriteLine($"<p>Slow windows: {E(report.Profile.SlowWindowsBasis)}</p>");
        Table(o, ["frame", "category", "ms", "share"], report.Profile.SlowWindows.Select(f => new[] { f.Frame, f.Category, N(f.Ms), Share(f.Share, "ms") }));
        o.WriteLine("<h2>4. The slowest requests</h2>");
        Table(o, ["#", "activity", "start ms", "duration ms", "thread", "fields", "causes", "top frames"],
            report.Slowest.Select(r => new[]
            {
                r.Rank.ToString(s_inv), r.Activity, N(r.StartMs), N(r.DurationMs), r.ThreadId.ToString(s_inv),
                string.Join(" ", r.Fields.Select(f => $"{f.Key}={f.Value}")),
                string.Join("; ", r.Causes.Select(c => $"{c.Cause}: {N(c.Value)} {c.Unit}")),
                string.Join("; ", r.TopFrames.Select(f => $"{f.Frame} {N(f.Ms)} ms")),
            }));
        o.WriteLine("<h2>5. Payload correlation</h2>");
        Table(o, ["activity", "field", "kind", "requests", "finding"], report.Payload.Select(r => new[] { r.Activity, r.Field, r.Kind, r.Requests.ToString("N0", s_inv), r.Finding }));
        if (report.Notes.Count > 0)
        {
            o.WriteLine("<h2>Notes</h2><ul>");
            foreach (var note in report.Notes)
            {
                o.WriteLine($"<li>{E(note)}</li>");
            }

            o.WriteLine("</ul>");
        }

        o.WriteLine("</body></html>");
    }

    private static void Table(TextWriter o, string[] headers, IEnumerable<string[]> rows)
    {
        o.Write("<table><tr>");
        foreach (var h in headers)
        {
            o.Write($"<th>{E(h)}</th>");
        }

        o.WriteLine("</tr>");
        foreach (var row in rows)
        {
            o.Write("<tr>");
            foreach (var cell in row)
            {
                o.Write($"<td>{E(cell)}</td>");
            }

            o.WriteLine("</tr>");
        }

        o.WriteLine("</table>");
    }

    private static string E(string s) => WebUtility.HtmlEncode(s);

    private static string N(double v) => v.ToString("0.###", s_inv);

    private static string Share(double v, string unit) => unit == "ms" ? (v * 100).ToString("0.0", s_inv) + "%" : v.ToString("0.###", s_inv);
}
