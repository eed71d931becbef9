using System.Globalization;
using System.Text;
using TailDb.Cli;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Target;

namespace TailDb.LoadTest.Reporting;

/// <summary>Plain-text tables for the terminal. Latencies in milliseconds.</summary>
public static class ReportRenderer
{
    /// <summary>A latency cell; blank when nothing was measured (a run stopped before its measured phase began).</summary>
    private static string Measured(WorkerResult result, long nanoseconds) => result.Operations == 0 ? "" : Milliseconds(nanoseconds);

    private static readonly string[] SummaryHeader = ["mode", "throughput/s", "p50", "p99", "p99.9", "p99.99", "max", "p99 uncorr.", "GCs g0/g1/g2", "GC pause"];
    private static readonly string[] DetailHeader = ["kind", "", "count", "p50", "p90", "p99", "p99.9", "p99.99", "max"];

    public static void WriteSummaryTable(TextWriter output, IReadOnlyList<ModeReport> reports)
    {
        bool networked = reports.Any(r => r.Target.Networked);
        var rows = new List<string[]>
        {
            networked ? [SummaryHeader[0], "target", .. SummaryHeader[1..]] : SummaryHeader,
        };
        foreach (ModeReport report in reports)
        {
            if (report.Result is not { } r)
            {
                rows.Add(WithTarget(networked, report, [report.Mode.Name, "failed", "", "", "", "", "", "", "", ""]));
                continue;
            }

            LatencySummary c = r.Overall.Corrected;
            // A networked row's GCs are the server's (from its INFO), the ones that make its tail; "(client)" when the server does not say.
            GcActivity gc = r.ServerGc ?? r.GcDuringMeasurement;
            string whose = r.Client is not null && r.ServerGc is null ? " (client)" : "";
            rows.Add(WithTarget(networked, report,
            [
                report.Mode.Name + (report.Problems.Count > 0 ? " (!)" : "") + (r.Interrupted ? " (cut)" : ""),
                r.Throughput.ToString("N0", CultureInfo.InvariantCulture),
                Measured(r, c.P50),
                Measured(r, c.P99),
                Measured(r, c.P999),
                Measured(r, c.P9999),
                Measured(r, c.Max),
                Measured(r, r.Overall.Uncorrected.P99),
                string.Create(CultureInfo.InvariantCulture, $"{gc.Gen0}/{gc.Gen1}/{gc.Gen2}{whose}"),
                string.Create(CultureInfo.InvariantCulture, $"{gc.PauseMilliseconds:0.0} ms"),
            ]));
        }

        output.WriteLine();
        output.WriteLine("latency in ms, from each request's intended start (coordinated-omission corrected) unless marked uncorr.; GCs and pause during the measured phase" +
            (networked ? " (a networked row's: the server's; for taildb-server the mode is the server's GC)" : ""));
        WriteTable(output, rows);
        if (reports.Any(r => r.Result is { Workload.Rate: null }))
        {
            output.WriteLine(reports.Any(r => r.Result?.Client is not null)
                ? "note: closed loop (--rate max): no request schedule; a networked request's latency runs from when its load thread asked for a pipeline slot (uncorrected: from its send)"
                : "note: closed loop (--rate max): no request schedule, so corrected and uncorrected latencies are the same figure");
        }

        foreach (ModeReport report in reports.Where(r => r.Result?.Client is not null))
        {
            ClientReport client = report.Result!.Client!;
            ClientCounts n = client.Counts;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"client {report.Mode.Name} → {report.Target.Name}: {client.Options.Describe()}; queue p50 {Milliseconds(client.Queue.P50)} p99 {Milliseconds(client.Queue.P99)} ms; " +
                $"{Counted.Of(n.PoolWaits, "pool wait")}, {Counted.Of(n.Timeouts, "timeout")}, {Counted.Of(n.Retries, "retry", "retries")}, {Counted.Of(n.Failures, "failure")}, {Counted.Of(n.ErrorReplies, "error reply", "error replies")}, {Counted.Of(n.LateReplies, "late reply", "late replies")}, {Counted.Of(n.Reconnects, "reconnect")} ({Counted.Of(n.LostInFlight, "request")} lost in flight)"));
        }

        foreach (ModeReport report in reports.Where(r => r.Result is { Backlog: > 0 }))
        {
            output.WriteLine($"note: {report.Mode.Name} fell behind the rate: {Counted.Of(report.Result!.Backlog, "scheduled request")} {Counted.Were(report.Result.Backlog)} never sent before the end");
        }
    }

    private static string[] WithTarget(bool networked, ModeReport report, string[] row) =>
        networked ? [row[0], report.Target.Name, .. row[1..]] : row;

    /// <summary>
    /// --repeat: per mode, each percentile as the median of its runs with the min-max range, and
    /// whether the seed's order (workstation p99 > server > nogc) held, as a count of runs.
    /// </summary>
    public static void WriteRepeatTable(TextWriter output, IReadOnlyList<ModeReport> reports, int runs)
    {
        var rows = new List<string[]> { RepeatHeader };
        foreach (var mode in reports.GroupBy(r => r.Target.Networked ? $"{r.Mode.Name} → {r.Target.Name}" : r.Mode.Name))
        {
            var results = mode.Where(r => r.Result is not null).Select(r => r.Result!).ToList();
            if (results.Count == 0)
            {
                rows.Add([mode.Key, "0", "", "", "", "", ""]);
                continue;
            }

            rows.Add(
            [
                mode.Key,
                results.Count.ToString(CultureInfo.InvariantCulture),
                Spread(results, r => r.Overall.Corrected.P50),
                Spread(results, r => r.Overall.Corrected.P99),
                Spread(results, r => r.Overall.Corrected.P999),
                Spread(results, r => r.Overall.Corrected.Max),
                Spread(results, r => (long)(r.GcDuringMeasurement.PauseMilliseconds * 1e6)),
            ]);
        }

        output.WriteLine();
        output.WriteLine($"{runs} runs, modes interleaved: median (min-max) of each figure over the runs; latency in ms, corrected for coordinated omission");
        WriteTable(output, rows);
        if (SeedOrderHeld(reports) is { } held)
        {
            output.WriteLine($"the seed's order at p99 (workstation > server > nogc) held in {held.Held} of {held.Runs} runs");
        }
    }

    /// <summary>In how many runs workstation p99 > server p99 > nogc p99, over the runs where all three finished; null without all three modes.</summary>
    public static (int Held, int Runs)? SeedOrderHeld(IReadOnlyList<ModeReport> reports)
    {
        int held = 0, compared = 0;
        foreach (var run in reports.GroupBy(r => r.Run))
        {
            long? P99(string mode) => run.FirstOrDefault(r => r.Mode.Name == mode)?.Result?.Overall.Corrected.P99;
            if (P99("workstation") is { } workstation && P99("server") is { } server && P99("nogc") is { } nogc)
            {
                compared++;
                held += workstation > server && server > nogc ? 1 : 0;
            }
        }

        return compared == 0 ? null : (held, compared);
    }

    private static readonly string[] RepeatHeader = ["mode", "runs", "p50", "p99", "p99.9", "max", "GC pause"];

    private static string Spread(List<WorkerResult> results, Func<WorkerResult, long> figure)
    {
        var values = results.Select(figure).Order().ToArray();
        long median = values.Length % 2 == 1 ? values[values.Length / 2] : (values[(values.Length / 2) - 1] + values[values.Length / 2]) / 2;
        return values.Length == 1 ? Milliseconds(median) : $"{Milliseconds(median)} ({Milliseconds(values[0])}-{Milliseconds(values[^1])})";
    }

    public static void WriteModeDetail(TextWriter output, ModeReport report)
    {
        WorkerResult r = report.Result!;
        output.WriteLine();
        output.WriteLine(r.Client is null
            ? $"mode {report.Mode.Name} ({report.Mode.RuntimeConfigPath}): {r.Gc.Describe()}"
            : $"mode {report.Mode.Name} against {report.Target.Name}; the client's GC: {r.Gc.Describe()}");
        string corrupt = r.CorruptReads > 0 ? $"; {r.CorruptReads} CORRUPT reads" : "";
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{r.Operations:N0} requests in {r.MeasuredSeconds:0.00} s = {r.Throughput:N0}/s; allocated {r.GcDuringMeasurement.AllocatedBytes / 1048576.0:N1} MiB; GC pause {r.GcDuringMeasurement.PauseMilliseconds:0.0} ms{corrupt}"));
        if (r.NoGcRegion is { } region)
        {
            output.WriteLine($"no-GC region: budget {region.BudgetBytes / 1048576.0:N0} MiB ({(region.BudgetFromWorkload ? "sized from warm-up" : "--nogc-budget")}), " +
                (region.Started ? region.ActiveAtEnd ? "held to the end" : "ENDED EARLY" : "not started: " + region.Error));
        }

        if (r.Compactions is { } c)
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"compactions: {c.Count} (warm-up included), {c.InputBytes / 1048576.0:N1} MiB read; copying {c.CopyMilliseconds:N0} ms, of it {c.ThrottledMilliseconds:N0} ms waiting for I/O budget; longest writer-lock hold {c.LongestLockHoldMilliseconds:0.000} ms publishing, {c.LongestSealHoldMilliseconds:0.000} ms sealing; priority {(c.Priorities.Count == 0 ? "-" : string.Join("/", c.Priorities))}"));
        }

        var rows = new List<string[]> { DetailHeader };
        foreach (KindLatency kind in r.Kinds.Append(r.Overall))
        {
            rows.Add(Row(kind.Kind, "corrected", kind.Corrected));
            rows.Add(Row("", "uncorrected", kind.Uncorrected));
        }

        WriteTable(output, rows);
    }

    public static string Milliseconds(long nanoseconds)
    {
        double ms = nanoseconds / 1e6;
        return ms switch
        {
            < 10 => ms.ToString("0.000", CultureInfo.InvariantCulture),
            < 1000 => ms.ToString("0.0", CultureInfo.InvariantCulture),
            _ => ms.ToString("N0", CultureInfo.InvariantCulture),
        };
    }

    private static string[] Row(string kind, string which, LatencySummary s) =>
    [
        kind, which, s.Count.ToString("N0", CultureInfo.InvariantCulture),
        Milliseconds(s.P50), Milliseconds(s.P90), Milliseconds(s.P99), Milliseconds(s.P999), Milliseconds(s.P9999), Milliseconds(s.Max),
    ];

    /// <summary>Rows of cells under a header row: names left-aligned, numbers right-aligned.</summary>
    internal static void WriteTable(TextWriter output, List<string[]> rows)
    {
        int columns = rows[0].Length;
        var widths = Enumerable.Range(0, columns).Select(c => rows.Max(r => r[c].Length)).ToArray();
        for (int i = 0; i < rows.Count; i++)
        {
            var line = new StringBuilder();
            for (int c = 0; c < columns; c++)
            {
                // First column left-aligned (names), the rest right-aligned (numbers).
                line.Append(c == 0 ? rows[i][c].PadRight(widths[c]) : rows[i][c].PadLeft(widths[c]));
                line.Append(c == columns - 1 ? "" : " | ");
            }

            output.WriteLine(line.ToString().TrimEnd());
            if (i == 0)
            {
                output.WriteLine(string.Join("-|-", widths.Select(w => new string('-', w))));
            }
        }
    }
}
