using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using TailDb.Benchmarks.Analysis;
using TailDb.Benchmarks.Fixtures;

namespace TailDb.Benchmarks.Configuration;

/// <summary>
/// Events per second of the analyzer benchmarks: the generated trace's event count (written
/// beside the trace by the process that generated it) over the mean time of one pass.
/// </summary>
public sealed class EventsPerSecondColumn : IColumn
{
    public string Id => nameof(EventsPerSecondColumn);

    public string ColumnName => "Events/s";

    public bool AlwaysShow => false;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Events in the generated trace divided by the mean time of one pass";

    public bool IsAvailable(Summary summary) =>
        summary?.BenchmarksCases.Any(b => b.Descriptor.HasCategory(Categories.Analyzer)) == true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, SummaryStyle.Default);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        ArgumentNullException.ThrowIfNull(summary);
        ArgumentNullException.ThrowIfNull(benchmarkCase);
        if (!benchmarkCase.Descriptor.HasCategory(Categories.Analyzer))
        {
            return "-";
        }

        var scale = benchmarkCase.Job.Environment.EnvironmentVariables?
            .FirstOrDefault(v => v.Key == SuiteScale.Variable)?.Value == SuiteScale.Quick.Name ? SuiteScale.Quick : SuiteScale.Full;
        var events = TraceFixture.ReadEventCount(scale);
        var mean = summary[benchmarkCase]?.ResultStatistics?.Mean;
        if (events is null || mean is null or <= 0)
        {
            return "?";
        }

        return (events.Value / (mean.Value / 1e9)).ToString("N0", CultureInfo.InvariantCulture);
    }
}
