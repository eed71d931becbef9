using System.Globalization;

namespace TailDb.Analyzer.Reports;

/// <summary>The terminal form: the six sections of `slowest`, or `summary`'s tables.</summary>
internal static class TextReportWriter
{
    private static readonly CultureInfo s_inv = CultureInfo.InvariantCulture;

    public static void Write(SlowestReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        var p = report.Population;
        o.WriteLine($"TailDb.Analyzer slowest: {report.Trace.File}");
        o.WriteLine();
        o.WriteLine("VERDICT");
        o.WriteLine($"  {report.Verdict}");
        o.WriteLine();
        o.WriteLine("1. POPULATION");
        WriteTrace(report.Trace, o);
        o.WriteLine($"  provider {p.Provider}: {p.Requests:N0} completed requests; slow set = {p.Selection}: {p.SlowCount:N0} requests >= {Ms(p.ThresholdMs)}");
        WriteActivities(p.Activities, p.Nested, o);
        o.WriteLine();
        o.WriteLine("2. CAUSES: share of request time, slow set vs the rest (lift = how over-represented in the tail)");
        // Causes are not exclusive (a FileRead and the file I/O samples inside it both count), so
        // a reader adding the column up would find more than 100% without this line.
        o.WriteLine("  causes overlap one another, so a column can add up to more than 100%");
        if (report.Causes.Count == 0)
        {
            o.WriteLine("  (no cause overlaps any request)");
        }
        else
        {
            o.WriteLine($"  {"cause",-62} {"scope",-8} {"slow",8} {"rest",8} {"lift",8}");
            foreach (var c in report.Causes)
            {
                var lift = c.LiftText;
                if (c.Unit == "ms")
                {
                    o.WriteLine($"  {Clip(c.Cause, 62),-62} {c.Scope,-8} {Pct(c.SlowShare),8} {Pct(c.RestShare),8} {lift,8}");
                }
                else
                {
                    o.WriteLine($"  {Clip(c.Cause + " (per request)", 62),-62} {c.Scope,-8} {c.SlowShare.ToString("0.###", s_inv),8} {c.RestShare.ToString("0.###", s_inv),8} {lift,8}");
                }
            }
        }

        o.WriteLine();
        o.WriteLine("3. PROFILE: whole run beside the slow windows");
        o.WriteLine($"  whole run: {report.Profile.WholeRunBasis}");
        WriteFrames(report.Profile.WholeRun, o, "    ");
        o.WriteLine($"  slow windows: {report.Profile.SlowWindowsBasis}");
        WriteFrames(report.Profile.SlowWindows, o, "    ");
        o.WriteLine();
        o.WriteLine($"4. THE {report.Slowest.Count} SLOWEST REQUESTS");
        foreach (var r in report.Slowest)
        {
            var fields = string.Join(" ", r.Fields.Select(f => $"{f.Key}={f.Value}"));
            o.WriteLine($"  #{r.Rank} {r.Activity} at {Ms(r.StartMs)}: {Ms(r.DurationMs)} on thread {r.ThreadId}  {fields}");
            if (r.Causes.Count == 0)
            {
                o.WriteLine("      no recorded cause overlaps this request");
            }

            foreach (var c in r.Causes)
            {
                var value = c.Unit == "ms" ? $"{Ms(c.Value)} ({Pct(r.DurationMs > 0 ? c.Value / r.DurationMs : 0)})" : $"{c.Value:0} events";
                o.WriteLine($"      {value,-22} {c.Cause}");
            }

            foreach (var f in r.TopFrames)
            {
                o.WriteLine($"      frame {Ms(f.Ms),-16} {f.Frame} [{f.Category}]");
            }
        }

        o.WriteLine();
        o.WriteLine("5. PAYLOAD: does duration rise with a field?");
        if (report.Payload.Count == 0)
        {
            o.WriteLine("  (no numeric payload fields)");
        }

        foreach (var row in report.Payload)
        {
            o.WriteLine($"  {row.Activity}.{row.Field} ({row.Kind}, {row.Requests:N0} requests): {row.Finding}");
        }

        WriteNotes(report.Notes, o);
    }

    public static void Write(SummaryReport report, TextWriter o)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(o);
        o.WriteLine($"TailDb.Analyzer summary: {report.Trace.File}");
        WriteTrace(report.Trace, o);
        o.WriteLine();
        o.WriteLine("REQUESTS");
        WriteActivities(report.Activities, report.Nested, o);
        o.WriteLine();
        var gc = report.Gc;
        o.WriteLine("GC");
        o.WriteLine($"  GCs by generation: gen0 {gc.CountByGeneration[0]:N0}, gen1 {gc.CountByGeneration[1]:N0}, gen2 {gc.CountByGeneration[2]:N0}");
        o.WriteLine($"  pauses: {gc.Pauses:N0}; p50 {Ms(gc.PauseP50Ms)}, p99 {Ms(gc.PauseP99Ms)}, max {Ms(gc.PauseMaxMs)}; total {Ms(gc.TotalPauseMs)} = {Pct(gc.PausedShare)} of the trace paused");
        o.WriteLine($"  other runtime suspensions (sample profiler, ...): {gc.OtherSuspensions:N0}, total {Ms(gc.OtherSuspendedMs)} = {Pct(gc.OtherSuspendedShare)} of the trace");
        WriteNotes(report.Notes, o);
    }

    private static void WriteTrace(TraceSection t, TextWriter o)
    {
        o.WriteLine($"  trace: {t.Bytes:N0} bytes, {Ms(t.DurationMs)}, {t.Events:N0} events, events lost: {t.EventsLost:N0}{(t.Truncation is null ? "" : ", TRUNCATED")}");
        o.WriteLine($"  requests paired by: {t.Pairing}");
        o.WriteLine($"  sampling interval: {(t.SamplingIntervalMs is { } i ? Ms(i) + " (measured)" : "n/a")}; samples: {t.Samples:N0}; stacks: {t.Stacks}");
    }

    private static void WriteActivities(IReadOnlyList<ActivityStats> activities, IReadOnlyList<NestedStats> nested, TextWriter o)
    {
        o.WriteLine($"  {"activity",-16} {"count",10} {"p50",10} {"p90",10} {"p99",10} {"p99.9",10} {"max",10} {"unpaired start/stop",20}");
        foreach (var a in activities)
        {
            o.WriteLine($"  {Clip(a.Name, 16),-16} {a.Count,10:N0} {Ms(a.P50Ms),10} {Ms(a.P90Ms),10} {Ms(a.P99Ms),10} {Ms(a.P999Ms),10} {Ms(a.MaxMs),10} {$"{a.UnpairedStarts}/{a.UnpairedStops}",20}");
        }

        foreach (var n in nested)
        {
            o.WriteLine($"  other activity {n.Name}: {n.Count:N0} completed, {n.WithParent:N0} nested inside a request, unpaired start/stop {n.UnpairedStarts}/{n.UnpairedStops}");
        }
    }

    private static void WriteFrames(IReadOnlyList<FrameRow> frames, TextWriter o, string indent)
    {
        if (frames.Count == 0)
        {
            o.WriteLine($"{indent}(nothing)");
        }

        foreach (var f in frames)
        {
            o.WriteLine($"{indent}{Pct(f.Share),7} {Ms(f.Ms),12}  {f.Frame} [{f.Category}]");
        }
    }

    private static void WriteNotes(IReadOnlyList<string> notes, TextWriter o)
    {
        if (notes.Count == 0)
        {
            return;
        }

        o.WriteLine();
        o.WriteLine("NOTES");
        foreach (var note in notes)
        {
            o.WriteLine($"  - {note}");
        }
    }

    private static string Ms(double ms) => ms.ToString(ms >= 100 ? "0.0" : "0.000", s_inv) + " ms";

    private static string Pct(double share) => (share * 100).ToString("0.0", s_inv) + "%";

    private static string Clip(string s, int width) => s.Length <= width ? s : string.Concat(s.AsSpan(0, width - 1), "…");
}
