using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Comparison;

/// <summary>One trace handed to <see cref="ModeComparisonBuilder"/>: its analysis, or the problem that left it without one.</summary>
internal sealed record AnalyzedMode(string Label, string? File, string? Page, SlowestReport? Report, string? Problem);

/// <summary>
/// Puts any number of `slowest` reports side by side, each measured against the first that has a
/// report (so a failed first mode does not leave every ratio blank). Pure, like <see cref="ComparisonBuilder"/>,
/// whose ratio and statistic spellings it shares.
/// </summary>
internal static class ModeComparisonBuilder
{
    private static readonly LatencyStatistic[] s_statistics = Enum.GetValues<LatencyStatistic>();

    public static ModeComparisonReport Build(IReadOnlyList<AnalyzedMode> modes)
    {
        ArgumentNullException.ThrowIfNull(modes);
        var baseline = modes.FirstOrDefault(m => m.Report is not null);
        return new ModeComparisonReport(
            modes.Select(Column).ToList(), baseline?.Label, s_statistics, PercentileRows(modes, baseline), CauseRows(modes));
    }

    private static ModeColumn Column(AnalyzedMode mode)
    {
        if (mode.Report is not { } report)
        {
            return new ModeColumn(mode.Label, mode.File, null, 0, "", 0, 0, "", "", null, mode.Problem ?? "no analysis");
        }

        var p = report.Population;
        return new ModeColumn(mode.Label, report.Trace.File, mode.Page, p.Requests, p.Selection, p.SlowCount, p.ThresholdMs, p.Range,
            report.Verdict, report.Trace.Truncation, null);
    }

    /// <summary>Per activity (the baseline's order, then those only others have), one row per trace that has it.</summary>
    private static List<ModePercentileRow> PercentileRows(IReadOnlyList<AnalyzedMode> modes, AnalyzedMode? baseline)
    {
        var analyzed = modes.Where(m => m.Report is not null).ToList();
        var activities = analyzed.SelectMany(m => m.Report!.Population.Activities.Where(a => a.Count > 0).Select(a => a.Name)).Distinct(StringComparer.Ordinal);
        var rows = new List<ModePercentileRow>();
        foreach (var activity in activities)
        {
            var reference = baseline?.Report!.Population.Activities.FirstOrDefault(a => a.Name == activity && a.Count > 0);
            foreach (var mode in analyzed)
            {
                var stats = mode.Report!.Population.Activities.FirstOrDefault(a => a.Name == activity && a.Count > 0);
                if (stats is null)
                {
                    continue;
                }

                var values = s_statistics.Select(s => ComparisonBuilder.Value(stats, s)).ToList();
                var ratios = s_statistics.Select(s => ComparisonBuilder.Ratio(reference is null ? null : ComparisonBuilder.Value(reference, s), ComparisonBuilder.Value(stats, s))).ToList();
                rows.Add(new ModePercentileRow(activity, mode.Label, ReferenceEquals(mode, baseline), values, ratios));
            }
        }

        return rows;
    }

    /// <summary>The union of every trace's causes, time causes first, then by the largest slow share any trace gives it.</summary>
    private static List<ModeCauseRow> CauseRows(IReadOnlyList<AnalyzedMode> modes)
    {
        var names = modes.SelectMany(m => m.Report?.Causes ?? []).Select(c => c.Cause).Distinct(StringComparer.Ordinal);
        var rows = new List<ModeCauseRow>();
        foreach (var name in names)
        {
            var sides = modes.Select(m => m.Report?.Causes.FirstOrDefault(c => c.Cause == name)).ToList();
            var any = sides.First(s => s is not null)!;
            rows.Add(new ModeCauseRow(any.Cause, any.Scope, any.Unit, any.Measurement, sides.Select(ComparisonBuilder.SideOf).ToList()));
        }

        return rows
            .OrderBy(r => r.Unit)
            .ThenByDescending(r => r.Sides.Max(s => s?.SlowShare ?? 0))
            .ThenBy(r => r.Cause, StringComparer.Ordinal)
            .ToList();
    }
}
