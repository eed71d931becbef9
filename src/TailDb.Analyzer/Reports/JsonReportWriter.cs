using System.Text.Json;
using System.Text.Json.Serialization;
using TailDb.Analyzer.Attribution;

namespace TailDb.Analyzer.Reports;

/// <summary>The stable JSON shape documented in docs/analyzer.md: camelCase, nulls kept, indented.</summary>
internal sealed class JsonReportWriter : IReportWriter<SlowestReport>, IReportWriter<SummaryReport>, IReportWriter<Buckets.BucketReport>,
    IReportWriter<Comparison.ComparisonReport>
{
    public static readonly JsonReportWriter Instance = new();

    private static readonly JsonSerializerOptions s_options = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        DefaultIgnoreCondition = JsonIgnoreCondition.Never,
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
        Converters = { new JsonStringEnumConverter(JsonNamingPolicy.CamelCase) },
    };

    public ReportFormat Format => ReportFormat.Json;

    void IReportWriter<SlowestReport>.Write(SlowestReport report, TextWriter output) => Write(report, output);

    void IReportWriter<SummaryReport>.Write(SummaryReport report, TextWriter output) => Write(report, output);

    void IReportWriter<Buckets.BucketReport>.Write(Buckets.BucketReport report, TextWriter output) => output.WriteLine(JsonSerializer.Serialize(report, s_options));

    void IReportWriter<Comparison.ComparisonReport>.Write(Comparison.ComparisonReport report, TextWriter output) =>
        output.WriteLine(JsonSerializer.Serialize(report, s_options));

    public static void Write(SlowestReport report, TextWriter output) => output.WriteLine(JsonSerializer.Serialize(report, s_options));

    public static void Write(SummaryReport report, TextWriter output) => output.WriteLine(JsonSerializer.Serialize(report, s_options));
}
