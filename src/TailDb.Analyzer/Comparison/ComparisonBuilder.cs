using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;

namespace TailDb.Analyzer.Comparison;

/// <summary>
/// Puts two `slowest` reports side by side: every activity's percentiles with B − A and B / A, every
/// cause either trace has with its slow share and lift in each, and both verdicts. Pure: the
/// analyses ran before, with the same options, so the rows compare like with like.
/// </summary>
internal static class ComparisonBuilder
{
    public static ComparisonReport Build(SlowestReport a, SlowestReport b, string labelA = "A", string labelB = "B")
    {
        ArgumentNullException.ThrowIfNull(a);
        ArgumentNullException.ThrowIfNull(b);
        return new ComparisonReport("compare", ComparisonReport.CurrentSchemaVersion, Side(labelA, a), Side(labelB, b),
            PercentileRows(a.Population.Activities, b.Population.Activities), CauseRows(a.Causes, b.Causes), Notes(a, b, labelA, labelB));
    }

    /// <summary>B / A, or null when A is zero (or either is missing): no ratio beats a made-up infinity.</summary>
    public static double? Ratio(double? a, double? b) =>
        a is { } x && b is { } y && x > 0 && double.IsFinite(x) && double.IsFinite(y) ? Math.Round(y / x, 3) : null;

    private static ComparedTrace Side(string label, SlowestReport report)
    {
        var p = report.Population;
        return new ComparedTrace(label, report.Trace.File, report.Trace.DurationMs, report.Trace.Truncation, p.Provider, p.Requests, p.Selection,
            p.SlowCount, p.ThresholdMs, p.Basis, p.Range, report.Verdict, report.VerdictDetail);
    }

    /// <summary>Activities in A's order, then those only B has; five statistics each.</summary>
    private static List<PercentileComparison> PercentileRows(IReadOnlyList<ActivityStats> a, IReadOnlyList<ActivityStats> b)
    {
        var names = a.Select(s => s.Name).Concat(b.Select(s => s.Name)).Distinct(StringComparer.Ordinal);
        var rows = new List<PercentileComparison>();
        foreach (var name in names)
        {
            var sa = a.FirstOrDefault(s => s.Name == name && s.Count > 0);
            var sb = b.FirstOrDefault(s => s.Name == name && s.Count > 0);
            foreach (var statistic in Enum.GetValues<LatencyStatistic>())
            {
                var va = sa is null ? (double?)null : Value(sa, statistic);
                var vb = sb is null ? (double?)null : Value(sb, statistic);
                double? delta = va is { } x && vb is { } y ? Population.Round(y - x) : null;
                rows.Add(new PercentileComparison(name, statistic, va, vb, delta, Ratio(va, vb)));
            }
        }

        return rows;
    }

    public static double Value(ActivityStats s, LatencyStatistic statistic) => statistic switch
    {
        LatencyStatistic.P50 => s.P50Ms,
        LatencyStatistic.P90 => s.P90Ms,
        LatencyStatistic.P99 => s.P99Ms,
        LatencyStatistic.P999 => s.P999Ms,
        _ => s.MaxMs,
    };

    /// <summary>The union of both traces' causes: time causes first, then by the larger slow share of the two.</summary>
    private static List<CauseComparison> CauseRows(IReadOnlyList<CauseRow> a, IReadOnlyList<CauseRow> b)
    {
        var rows = new List<CauseComparison>();
        foreach (var name in a.Select(c => c.Cause).Concat(b.Select(c => c.Cause)).Distinct(StringComparer.Ordinal))
        {
            var ca = a.FirstOrDefault(c => c.Cause == name);
            var cb = b.FirstOrDefault(c => c.Cause == name);
            var any = ca ?? cb!;
            var change = Math.Round((cb?.SlowShare ?? 0) - (ca?.SlowShare ?? 0), 4);
            rows.Add(new CauseComparison(any.Cause, any.Scope, any.Unit, any.Measurement, SideOf(ca), SideOf(cb), change, Ratio(ca?.Lift, cb?.Lift)));
        }

        rows.Sort((x, y) =>
        {
            var unit = x.Unit.CompareTo(y.Unit);
            if (unit != 0)
            {
                return unit;
            }

            var share = Largest(y).CompareTo(Largest(x));
            return share != 0 ? share : string.CompareOrdinal(x.Cause, y.Cause);
        });
        return rows;
    }

    public static CauseSide? SideOf(CauseRow? row) => row is null ? null : new CauseSide(row.SlowShare, row.RestShare, row.Lift);

    private static double Largest(CauseComparison row) => Math.Max(row.A?.SlowShare ?? 0, row.B?.SlowShare ?? 0);

    /// <summary>What makes the two sides less than like for like.</summary>
    private static List<string> Notes(SlowestReport a, SlowestReport b, string labelA, string labelB)
    {
        var notes = new List<string>();
        if (a.Population.Basis != b.Population.Basis)
        {
            notes.Add($"The latencies differ in kind: {labelA} measures {a.Population.BasisDescription}; {labelB} measures {b.Population.BasisDescription}.");
        }

        if (a.Population.Provider != b.Population.Provider)
        {
            notes.Add($"The requests come from different providers: {a.Population.Provider} in {labelA}, {b.Population.Provider} in {labelB}.");
        }

        foreach (var (label, report) in new[] { (labelA, a), (labelB, b) })
        {
            if (report.Trace.Truncation is { } truncation)
            {
                notes.Add($"{label} is truncated: {truncation}");
            }
        }

        return notes;
    }
}
