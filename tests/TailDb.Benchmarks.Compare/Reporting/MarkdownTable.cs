using System.Globalization;
using System.Text;
using TailDb.Benchmarks.Compare.Comparison;
using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Reporting;

/// <summary>benchmark | baseline | now | ratio | verdict, then one summary line.</summary>
public static class MarkdownTable
{
    public static string Render(IReadOnlyList<ComparisonRow> rows, ComparisonOptions options)
    {
        ArgumentNullException.ThrowIfNull(rows);
        ArgumentNullException.ThrowIfNull(options);

        var text = new StringBuilder();
        text.AppendLine("| benchmark | baseline | now | ratio | verdict |");
        text.AppendLine("|---|---:|---:|---:|---|");
        foreach (var row in rows)
        {
            text.Append("| ").Append(Escape(row.Name))
                .Append(" | ").Append(Cell(row.Baseline))
                .Append(" | ").Append(Cell(row.Current))
                .Append(" | ").Append(row.TimeRatio is { } r ? Units.Ratio(r) : "")
                .Append(" | ").Append(Verdict(row, options))
                .AppendLine(" |");
        }

        text.AppendLine();
        text.AppendLine(Summary(rows, options));
        return text.ToString();
    }

    public static string Verdict(ComparisonRow row, ComparisonOptions options)
    {
        ArgumentNullException.ThrowIfNull(row);
        ArgumentNullException.ThrowIfNull(options);

        if (row.Baseline is null)
        {
            return "new: not in the baseline";
        }

        if (row.Current is null)
        {
            return "missing: not in this run";
        }

        var parts = new List<string>();
        var p = row.PValue is { } pv ? $" ({Units.PValue(pv)})" : "";
        parts.Add(row.Time switch
        {
            TimeChange.Slower when row.TimeFails => $"**FAIL** slower, past {Units.Ratio(options.FailRatio)}{p}",
            TimeChange.Slower when row.IsRawBaseline => $"slower{p}, raw baseline: the machine, never fails",
            TimeChange.Slower when row.TimeRatio >= options.FailRatio && row.CorrectedRatio is { } c =>
                $"slower{p}, but {Units.Ratio(c)} after its raw baseline's {Units.Ratio(row.MachineDrift!.Value)} machine drift",
            TimeChange.Slower => $"slower{p}",
            TimeChange.Faster => $"faster{p}",
            TimeChange.Same => $"same{p}",
            _ => "time untested (too few measurements)",
        });

        var delta = (row.Current.AllocatedBytesPerOperation ?? 0) - (row.Baseline.AllocatedBytesPerOperation ?? 0);
        switch (row.Allocation)
        {
            case AllocationChange.More when row.AllocationFails:
                parts.Add($"**FAIL** allocates +{Units.Bytes(delta)}/op");
                break;
            case AllocationChange.More:
                parts.Add($"allocates +{Units.Bytes(delta)}/op (within tolerance)");
                break;
            case AllocationChange.Less:
                parts.Add($"allocates {Units.Bytes(delta)}/op");
                break;
            case AllocationChange.Unknown:
                parts.Add("allocations not measured");
                break;
        }

        return string.Join("; ", parts);
    }

    public static string Summary(IReadOnlyList<ComparisonRow> rows, ComparisonOptions options)
    {
        ArgumentNullException.ThrowIfNull(rows);
        ArgumentNullException.ThrowIfNull(options);

        var compared = rows.Count(r => r.Baseline is not null && r.Current is not null);
        return string.Create(
            CultureInfo.InvariantCulture,
            $"{compared} compared, {rows.Count(r => r.Fails)} failed, {rows.Count(r => r.Time == TimeChange.Slower)} slower, " +
            $"{rows.Count(r => r.Time == TimeChange.Faster)} faster, {rows.Count(r => r.Allocation == AllocationChange.More)} allocate more, " +
            $"{rows.Count(r => r.Current is null)} missing now, {rows.Count(r => r.Baseline is null)} new " +
            $"(one-sided Mann-Whitney at alpha {options.Alpha}; a time fails only when significant and >= {Units.Ratio(options.FailRatio)}, " +
            $"also after dividing out its raw baseline's drift; raw baselines never fail on time; " +
            $"allocation growth fails past max({options.AllocationToleranceBytes} B, {options.AllocationRelativeTolerance:P2} of the baseline) per op)");
    }

    private static string Cell(BenchmarkResult? result) =>
        result is null ? "-" : $"{Units.Time(result.MedianNanoseconds)}, {Units.Bytes(result.AllocatedBytesPerOperation)}";

    private static string Escape(string text) => text.Replace("|", "\\|", StringComparison.Ordinal);
}
