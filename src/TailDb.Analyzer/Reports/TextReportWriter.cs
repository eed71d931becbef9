using System.Globalization;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Cli;

namespace TailDb.Analyzer.Reports;

/// <summary>The terminal form: the six sections of `slowest`, or `summary`'s tables.</summary>
internal sealed class TextReportWriter : IReportWriter<SlowestReport>, IReportWriter<SummaryReport>
{
    public static readonly TextReportWriter Instance = new();

    public ReportFormat Format => ReportFormat.Text;

    void IReportWriter<SlowestReport>.Write(SlowestReport report, TextWriter output) => Write(report, output);

    void IReportWriter<SummaryReport>.Write(SummaryReport report, TextWriter output) => Write(report, output);

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
        o.WriteLine($"  requests: {p.Range}");
        o.WriteLine($"  latency: {p.BasisDescription}");
        o.WriteLine($"  provider {p.Provider}: {Counted.Of(p.Requests, "completed request")}; slow set = {p.Selection}: {Counted.Of(p.SlowCount, "request")} >= {Ms(p.ThresholdMs)}");
        WriteActivities(p.Activities, p.Nested, o);
        o.WriteLine();
        o.WriteLine("2. CAUSES: share of request time, slow set vs the rest (lift = how over-represented in the tail)");
        // Causes are not exclusive (a FileRead and the file I/O samples inside it both count), so
        // a reader adding the column up would find more than 100% without this line.
        o.WriteLine("  causes overlap one another, so a column can add up to more than 100%");
        if (report.VerdictDetail is { } verdict)
        {
            o.WriteLine($"  measurement overhead: {Pct(verdict.MeasurementOverheadShare)} of the slow set's time (sampler suspensions, tracing code, the recording's threads on a CPU; never the verdict)");
        }

        if (report.Causes.Count == 0)
        {
            o.WriteLine("  (no cause overlaps any request)");
        }
        else
        {
            var response = report.Population.Basis == Attribution.LatencyBasis.Response;
            o.WriteLine($"  {"cause",-62} {"scope",-8} {"slow",8} {"rest",8} {"lift",8}{(response ? $" {"queued",8}" : "")}");
            foreach (var c in report.Causes)
            {
                var lift = c.LiftText;
                if (c.Unit == CauseUnit.Milliseconds)
                {
                    var queued = response ? $" {Pct(c.SlowTotal > 0 ? c.SlowQueueTotal / c.SlowTotal : 0),8}" : "";
                    o.WriteLine($"  {Clip(c.Cause, 62),-62} {c.Scope,-8} {Pct(c.SlowShare),8} {Pct(c.RestShare),8} {lift,8}{queued}");
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
            var fields = r.DescribeFields();
            o.WriteLine($"  #{r.Rank} {r.Activity} at {Ms(r.StartMs)}: {Ms(r.DurationMs)} on thread {r.ThreadId}  {fields}");
            if (r.Causes.Count == 0)
            {
                o.WriteLine("      no recorded cause overlaps this request");
            }

            if (report.Population.Basis == Attribution.LatencyBasis.Response && r.QueueCauses is { } queue && r.ServiceCauses is { } service)
            {
                o.WriteLine($"      {QueueSentence(r, queue)}");
                WriteOverlaps(o, "queue", queue, r.QueueMs);
                WriteOverlaps(o, "service", service, r.ServiceMs);
            }
            else
            {
                WriteOverlaps(o, "", r.Causes, r.DurationMs);
            }

            o.WriteLine(r.Named is { } n ? $"      cause named: {n.Cause} ({Ms(n.Value)})" : "      no cause named");
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
            o.WriteLine($"  {row.Activity}.{row.Field} ({row.Kind}, {Counted.Of(row.Requests, "request")}): {row.Finding}");
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
        o.WriteLine($"  trace: {Counted.Of(t.Bytes, "byte")}, {Ms(t.DurationMs)}, {Counted.Of(t.Events, "event")}, events lost: {t.EventsLost:N0}{(t.Truncation is null ? "" : ", TRUNCATED")}");
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

    /// <summary>"queued 6.1 ms behind gen1 GC pauses, served in 0.02 ms".</summary>
    private static string QueueSentence(SlowRequestRow r, IReadOnlyList<CauseOverlap> queue)
    {
        // The cause named for the request (RequestBlame), when its queue has it: not the requests it
        // queued behind (only the carrier), not the measurement's cost, not its ordinary samples.
        var behind = r.Named is { } named ? queue.FirstOrDefault(c => c.Cause == named.Cause) : null;
        var why = r.QueueMs <= 0 ? "not queued"
            : behind is null ? $"queued {Ms(r.QueueMs)} (no recorded cause behind the queue)"
            : $"queued {Ms(r.QueueMs)} behind {behind.Cause}";
        return $"{why}, served in {Ms(r.ServiceMs)}";
    }

    private static void WriteOverlaps(TextWriter o, string part, IReadOnlyList<CauseOverlap> causes, double partMs)
    {
        foreach (var c in causes)
        {
            var value = c.Unit == CauseUnit.Milliseconds ? $"{Ms(c.Value)} ({Pct(partMs > 0 ? c.Value / partMs : 0)})" : $"{c.Value:0} events";
            o.WriteLine($"      {part,-8}{value,-22} {c.Cause}");
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
