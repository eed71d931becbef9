using System.Globalization;
using System.Text.Json;

namespace TailDb.Benchmarks.Compare.Results;

/// <summary>
/// Reads BenchmarkDotNet's full JSON export (JsonExporter.Full, files named *-report-full.json):
/// only the full flavour carries the raw Measurements the statistical test needs. A row's rounds
/// (<see cref="ProcessRounds"/>) are read as one row.
/// </summary>
public static class BdnJsonReader
{
    /// <summary>Reads every path: a file, or a directory whose *-report-full.json files are all read.</summary>
    public static IReadOnlyList<BenchmarkResult> ReadAll(IEnumerable<string> paths)
    {
        var results = new List<BenchmarkResult>();
        var baselines = new Dictionary<string, SuiteEntry>(StringComparer.Ordinal);
        foreach (var path in paths)
        {
            if (Directory.Exists(path))
            {
                var files = Directory.GetFiles(path, "*-report-full.json", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToArray();
                if (files.Length == 0)
                {
                    throw new CompareException($"{path}: no *-report-full.json file (export with JsonExporter.Full)");
                }

                foreach (var file in files)
                {
                    results.AddRange(ReadFile(file));
                }

                foreach (var file in Directory.GetFiles(path, "*-report-baselines.json", SearchOption.AllDirectories))
                {
                    foreach (var (id, baseline) in ReadBaselineMap(file))
                    {
                        baselines[ProcessRounds.WithoutRound(id)] = baseline with
                        {
                            Baseline = baseline.Baseline is { } b ? ProcessRounds.WithoutRound(b) : null,
                        };
                    }
                }
            }
            else if (File.Exists(path))
            {
                results.AddRange(ReadFile(path));
            }
            else
            {
                throw new CompareException($"{path}: no such file or directory");
            }
        }

        return ProcessRounds.Pool(results).Select(r => baselines.TryGetValue(r.Id, out var e) ? r with { BaselineId = e.Baseline, AllocationNoiseBytes = e.AllocationNoiseBytes, DriftsWith = e.DriftsWith } : r)
            .ToArray();
    }

    /// <summary>What the suite's *-report-baselines.json says about one benchmark.</summary>
    public sealed record SuiteEntry(string? Baseline, long AllocationNoiseBytes, IReadOnlyList<string> DriftsWith);

    /// <summary>Reads the suite's *-report-baselines.json: benchmark FullName → its category's
    /// baseline FullName, declared allocation noise and declared drift references.</summary>
    public static IReadOnlyDictionary<string, SuiteEntry> ReadBaselineMap(string path)
    {
        try
        {
            using var document = JsonDocument.Parse(File.ReadAllText(path));
            var map = new Dictionary<string, SuiteEntry>(StringComparer.Ordinal);
            foreach (var entry in document.RootElement.GetProperty("Benchmarks").EnumerateArray())
            {
                if (entry.GetProperty("FullName").GetString() is { } id)
                {
                    var baseline = entry.TryGetProperty("Baseline", out var b) ? b.GetString() : null;
                    var noise = entry.TryGetProperty("AllocationNoiseBytes", out var n) ? n.GetInt64() : 0;
                    var drifts = entry.TryGetProperty("DriftsWith", out var d) ? d.EnumerateArray().Select(m => m.GetString() ?? "").ToArray() : [];
                    map[id] = new SuiteEntry(baseline, noise, drifts);
                }
            }

            return map;
        }
        catch (Exception e) when (e is JsonException or KeyNotFoundException or InvalidOperationException or IOException)
        {
            throw new CompareException($"{path}: not a baselines map ({e.Message})", e);
        }
    }

    public static IReadOnlyList<BenchmarkResult> ReadFile(string path)
    {
        string text;
        try
        {
            text = File.ReadAllText(path);
        }
        catch (IOException e)
        {
            throw new CompareException($"{path}: {e.Message}", e);
        }

        try
        {
            return Parse(text);
        }
        catch (JsonException e)
        {
            throw new CompareException($"{path}: not BenchmarkDotNet's full JSON ({e.Message})", e);
        }
        catch (InvalidOperationException e)
        {
            throw new CompareException($"{path}: not BenchmarkDotNet's full JSON ({e.Message})", e);
        }
        catch (KeyNotFoundException e)
        {
            throw new CompareException($"{path}: not BenchmarkDotNet's full JSON ({e.Message})", e);
        }
    }

    public static IReadOnlyList<BenchmarkResult> Parse(string json)
    {
        // BenchmarkDotNet writes non-finite statistics (e.g. the error of a single iteration) as the
        // bare tokens NaN/Infinity, which are not JSON; we never read those fields, so quoting them
        // is enough to make the document parseable.
        json = QuoteNonFiniteNumbers(json);
        using var document = JsonDocument.Parse(json, new JsonDocumentOptions { AllowTrailingCommas = true });
        if (!document.RootElement.TryGetProperty("Benchmarks", out var benchmarks) || benchmarks.ValueKind != JsonValueKind.Array)
        {
            throw new JsonException("no \"Benchmarks\" array");
        }

        var results = new List<BenchmarkResult>();
        foreach (var benchmark in benchmarks.EnumerateArray())
        {
            results.Add(ReadBenchmark(benchmark));
        }

        return results;
    }

    private static BenchmarkResult ReadBenchmark(JsonElement benchmark)
    {
        var fullName = benchmark.GetProperty("FullName").GetString() ?? throw new JsonException("FullName is null");
        var type = StringOrEmpty(benchmark, "Type");
        var method = StringOrEmpty(benchmark, "Method");
        var parameters = StringOrEmpty(benchmark, "Parameters");
        var display = type.Length > 0 && method.Length > 0 ? $"{type}.{method}" : fullName;
        if (parameters.Length > 0)
        {
            display += $"({parameters.Replace("&", ", ", StringComparison.Ordinal)})";
        }

        if (!benchmark.TryGetProperty("Measurements", out var measurements) || measurements.ValueKind != JsonValueKind.Array)
        {
            throw new JsonException($"{fullName} has no Measurements (the brief export lacks them: use JsonExporter.Full)");
        }

        var result = new List<double>();
        var actual = new List<double>();
        var launches = new List<int>();
        foreach (var m in measurements.EnumerateArray())
        {
            if (StringOrEmpty(m, "IterationMode") != "Workload")
            {
                continue;
            }

            var operations = m.GetProperty("Operations").GetInt64();
            var nanoseconds = ReadDouble(m.GetProperty("Nanoseconds"));
            if (operations <= 0)
            {
                continue;
            }

            switch (StringOrEmpty(m, "IterationStage"))
            {
                case "Result":
                    result.Add(nanoseconds / operations);
                    launches.Add(m.TryGetProperty("LaunchIndex", out var launch) && launch.ValueKind == JsonValueKind.Number ? launch.GetInt32() : 1);
                    break;
                case "Actual":
                    actual.Add(nanoseconds / operations);
                    break;
            }
        }

        long? allocated = null;
        if (benchmark.TryGetProperty("Memory", out var memory) && memory.ValueKind == JsonValueKind.Object &&
            memory.TryGetProperty("BytesAllocatedPerOperation", out var bytes) && bytes.ValueKind == JsonValueKind.Number)
        {
            allocated = bytes.GetInt64();
        }

        if (result.Count == 0)
        {
            return new BenchmarkResult(fullName, display, actual, allocated);
        }

        // One median per process, in launch order.
        var processMedians = result.Zip(launches).GroupBy(m => m.Second).OrderBy(g => g.Key)
            .Select(g => BenchmarkResult.Median(g.Select(m => m.First).ToArray()))
            .ToArray();
        return new BenchmarkResult(fullName, display, result, allocated) { ProcessMedians = processMedians };
    }

    private static string StringOrEmpty(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() ?? "" : "";

    private static double ReadDouble(JsonElement element) =>
        element.ValueKind == JsonValueKind.String
            ? double.Parse(element.GetString()!, NumberStyles.Float, CultureInfo.InvariantCulture)
            : element.GetDouble();

    internal static string QuoteNonFiniteNumbers(string json) =>
        System.Text.RegularExpressions.Regex.Replace(json, @"(?<=[:\[,]\s*)(-?Infinity|NaN)(?=\s*[,\]}])", "\"$1\"");
}
