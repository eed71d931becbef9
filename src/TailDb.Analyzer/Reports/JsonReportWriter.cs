using System.Text.Json;
using System.Text.Json.Serialization;

namespace TailDb.Analyzer.Reports;

/// <summary>The stable JSON shape documented in docs/analyzer.md: camelCase, nulls kept, indented.</summary>
internal static class JsonReportWriter
{
    private static readonly JsonSerializerOptions s_options = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        DefaultIgnoreCondition = JsonIgnoreCondition.Never,
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static void Write(SlowestReport report, TextWriter output) => output.WriteLine(JsonSerializer.Serialize(report, s_options));

    public static void Write(SummaryReport report, TextWriter output) => output.WriteLine(JsonSerializer.Serialize(report, s_options));
}
