using System.Text;
using System.Text.Json;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;

namespace TailDb.Benchmarks.Configuration;

/// <summary>
/// Writes *-report-baselines.json: each benchmark's FullName, the FullName of the baseline of its
/// category in the same run, its declared <see cref="AllocationNoiseAttribute"/> and
/// <see cref="DriftsWithAttribute"/>s if any. BenchmarkDotNet's full JSON does not say which benchmark is a
/// baseline; the CI comparison needs it to tell a slower TailDb from a slower machine (the raw
/// baselines run no TailDb code, so when they slow down too, the machine did).
/// </summary>
public sealed class BaselineMapExporter : ExporterBase
{
    protected override string FileExtension => "json";

    protected override string FileNameSuffix => "-baselines";

    public override void ExportToLog(Summary summary, ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(summary);
        ArgumentNullException.ThrowIfNull(logger);
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteStartArray("Benchmarks");
            foreach (var benchmark in summary.BenchmarksCases)
            {
                var baseline = summary.GetBaseline(summary.GetLogicalGroupKey(benchmark));
                json.WriteStartObject();
                json.WriteString("FullName", FullNameProvider.GetBenchmarkName(benchmark));
                if (baseline is not null)
                {
                    json.WriteString("Baseline", FullNameProvider.GetBenchmarkName(baseline));
                }

                if (benchmark.Descriptor.WorkloadMethod.GetCustomAttributes(typeof(AllocationNoiseAttribute), false)
                    is [AllocationNoiseAttribute noise, ..])
                {
                    json.WriteNumber("AllocationNoiseBytes", noise.Bytes);
                }

                if (benchmark.Descriptor.WorkloadMethod.GetCustomAttributes(typeof(DriftsWithAttribute), false) is { Length: > 0 } references)
                {
                    json.WriteStartArray("DriftsWith");
                    foreach (DriftsWithAttribute reference in references)
                    {
                        json.WriteStringValue(reference.Method);
                    }

                    json.WriteEndArray();
                }

                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        logger.Write(Encoding.UTF8.GetString(buffer.ToArray()));
    }
}
