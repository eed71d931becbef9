using System.Globalization;
using TailDb.Analyzer.Findings;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Scenarios;

/// <summary>How a story is printed: its heading, one before/after table, and its reading.</summary>
public static class StoryTable
{
    public static void Write(TextWriter output, IScenario story, StoryOutcome outcome, ScenarioSettings settings)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(story);
        ArgumentNullException.ThrowIfNull(outcome);
        ArgumentNullException.ThrowIfNull(settings);
        output.WriteLine();
        output.WriteLine($"{story.Name} (seed {story.Seed}): {story.Sides}; {settings.DurationSeconds.ToString("0.###", CultureInfo.InvariantCulture)} s measured per run");
        var rows = new List<string[]> { new[] { "side", "requests", "p50", "p99", "p99.9", outcome.FigureName, "verdict (slowest 1%)" } };
        foreach (StoryRow row in outcome.Rows)
        {
            rows.Add(
            [
                row.Side, row.Requests.ToString("N0", CultureInfo.InvariantCulture), ReportRenderer.Milliseconds(row.P50Nanoseconds),
                ReportRenderer.Milliseconds(row.P99Nanoseconds), ReportRenderer.Milliseconds(row.P999Nanoseconds), row.Figure, row.Verdict,
            ]);
        }

        ReportRenderer.WriteTable(output, rows);
        foreach (List<string[]> table in outcome.Tables)
        {
            output.WriteLine();
            ReportRenderer.WriteTable(output, table);
        }

        foreach (string note in outcome.Notes)
        {
            output.WriteLine(note);
        }

        output.WriteLine((outcome.Shown ? "shown: " : "NOT SHOWN on this run: ") + outcome.Finding);
        output.Flush();
    }

    /// <summary>A side's row from its runs: each percentile the median over the runs (one run: itself).</summary>
    public static StoryRow Row(string side, IReadOnlyList<SideRun> runs, double value, string figure)
    {
        ArgumentNullException.ThrowIfNull(runs);
        LatencySummary[] corrected = [.. runs.Select(r => r.Result.Overall.Corrected)];
        SideRun middle = MedianRun(runs);
        return new StoryRow(
            side, corrected.Sum(c => c.Count) / corrected.Length, Median(corrected.Select(c => c.P50)), Median(corrected.Select(c => c.P99)),
            Median(corrected.Select(c => c.P999)), value, figure, middle.RequestFinding?.VerdictKind, Verdict(middle),
            (middle.Result.ServerGc ?? middle.Result.GcDuringMeasurement).PauseMilliseconds);
    }

    /// <summary>The run whose p99 is the median (the lower middle of an even count): its verdict stands for the side.</summary>
    public static SideRun MedianRun(IReadOnlyList<SideRun> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        var ordered = runs.OrderBy(r => r.Result.Overall.Corrected.P99).ToList();
        return ordered[(ordered.Count - 1) / 2];
    }

    /// <summary>The verdict short: the cause `slowest` names and its share of the slow set's time (a networked side's: the client's trace's).</summary>
    public static string Verdict(SideRun run)
    {
        ArgumentNullException.ThrowIfNull(run);
        return run.RequestFinding switch
        {
            null => "not analyzed: " + (run.ClientTracePath is null ? run.AnalysisProblem : run.ClientAnalysisProblem),
            { VerdictCause: null } => "nothing recorded explains it",
            { } f => $"{f.VerdictCause} {Percent(f.VerdictShare)}",
        };
    }

    /// <summary>The median of a side's GC shares (0 when a run was not analyzed).</summary>
    public static double MedianGcShare(IReadOnlyList<SideRun> runs) => MedianOf(runs.Select(r => r.Finding?.GcShare ?? 0));

    public static string Percent(double share) => share.ToString(share is > 0 and < 0.01 ? "0.0%" : "0%", CultureInfo.InvariantCulture);

    public static string Ms(long nanoseconds) => ReportRenderer.Milliseconds(nanoseconds) + " ms";

    private static long Median(IEnumerable<long> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count == 0 ? 0 : sorted[(sorted.Count - 1) / 2];
    }

    private static double MedianOf(IEnumerable<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count == 0 ? 0 : sorted[(sorted.Count - 1) / 2];
    }

    /// <summary>A side's row whose figure is the median GC share of the slow set.</summary>
    public static StoryRow GcRow(string side, IReadOnlyList<SideRun> runs)
    {
        double share = MedianGcShare(runs);
        return Row(side, runs, share, Percent(share));
    }

    /// <summary>Why a direction can fail to show here, with this machine's load in it.</summary>
    public static string NoisyMachine()
    {
        var machine = MachineInfo.Current();
        return $"(load average {machine.LoadAverage?.ToString("0.0", CultureInfo.InvariantCulture) ?? "unknown"} on {machine.ProcessorCount} cores: a load thread waiting for a core " +
            "delays every request queued behind it as a pause does; rerun on a quiet machine, with --repeat 3 or a longer --duration)";
    }
}
