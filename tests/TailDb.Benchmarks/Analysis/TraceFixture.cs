using System.Globalization;
using System.IO.Compression;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Tests.TraceGen.Recording;
using TailDb.Benchmarks.Configuration;

namespace TailDb.Benchmarks.Analysis;

/// <summary>
/// The trace the analyzer benchmarks parse, from the stacks engineer's `storm` workload (TailDb
/// Get/Put activities with nested FileRead/Fsync, frequent gen0 GCs, CPU in named frames, sample
/// profiler on), recorded as a suspended child with the one provider list every recording uses.
/// <list type="bullet">
/// <item>Quick: a committed recording (1 writer thread, 1 s, 5.7 MB, gzipped in the assembly). A
/// fresh recording differs in size on every run, and so would the bytes each pass allocates,
/// which the CI comparison treats as deterministic.</item>
/// <item>Full: recorded fresh by the host when a full run starts (its cache cleared first), and
/// shared by the benchmark processes.</item>
/// </list>
/// The event count is written beside the trace for the Events/s column.
/// </summary>
public static class TraceFixture
{
    private const string QuickResource = "storm-quick.nettrace.gz";

    private static string CacheDirectory => Path.Combine(Path.GetTempPath(), "taildb-bench-traces");

    public static string TracePath(SuiteScale scale)
    {
        ArgumentNullException.ThrowIfNull(scale);
        return Path.Combine(CacheDirectory, $"storm-{scale.Name}.nettrace");
    }

    public static void ClearCache()
    {
        if (Directory.Exists(CacheDirectory))
        {
            Directory.Delete(CacheDirectory, recursive: true);
        }
    }

    /// <summary>
    /// Whether a run with these arguments runs an analyzer benchmark, judged by BenchmarkDotNet's
    /// own glob filter on the analyzer benchmarks' cases: no <c>--filter</c> runs everything, and
    /// a category filter is taken to include them (it is not worth reading category rules twice).
    /// </summary>
    public static bool NeededBy(IReadOnlyList<string> args, BenchmarkDotNet.Configs.IConfig config)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (args.Any(a => a.StartsWith("--anyCategories", StringComparison.OrdinalIgnoreCase) || a.StartsWith("--allCategories", StringComparison.OrdinalIgnoreCase)))
        {
            return true;
        }

        var patterns = new List<string>();
        for (var i = 0; i < args.Count; i++)
        {
            if (args[i] is not ("--filter" or "-f"))
            {
                continue;
            }

            // A filter's patterns are the arguments after it, up to the next option.
            while (i + 1 < args.Count && !args[i + 1].StartsWith('-'))
            {
                patterns.Add(args[++i]);
            }
        }

        if (patterns.Count == 0)
        {
            return true;
        }

        var filter = new BenchmarkDotNet.Filters.GlobFilter([.. patterns]);
        return BenchmarkDotNet.Running.BenchmarkConverter.TypeToBenchmarks(typeof(AnalyzerBenchmarks), config).BenchmarksCases.Any(filter.Predicate);
    }

    /// <summary>Returns the trace for <paramref name="scale"/>, writing or recording it first if this run has none yet.</summary>
    public static string Ensure(SuiteScale scale)
    {
        ArgumentNullException.ThrowIfNull(scale);
        var path = TracePath(scale);
        if (File.Exists(path) && File.Exists(CountPath(path)))
        {
            return path;
        }

        Directory.CreateDirectory(CacheDirectory);
        var partial = path + ".partial";
        if (scale == SuiteScale.Quick)
        {
            Unpack(partial);
        }
        else
        {
            RecordAsync(partial, scale).GetAwaiter().GetResult();
        }

        var events = CountEvents(partial);
        File.Move(partial, path, overwrite: true);
        File.WriteAllText(CountPath(path), events.ToString(CultureInfo.InvariantCulture));
        return path;
    }

    public static long? ReadEventCount(SuiteScale scale)
    {
        var countPath = CountPath(TracePath(scale));
        return File.Exists(countPath) && long.TryParse(File.ReadAllText(countPath), CultureInfo.InvariantCulture, out var count) ? count : null;
    }

    public static long CountEvents(string path)
    {
        using var source = new EventPipeEventSource(path);
        long events = 0;
        source.AllEvents += _ => events++;
        source.Process();
        return events;
    }

    private static void Unpack(string path)
    {
        using var resource = typeof(TraceFixture).Assembly.GetManifestResourceStream(QuickResource)
            ?? throw new InvalidOperationException($"the benchmark assembly lacks its {QuickResource} resource");
        using var gzip = new GZipStream(resource, CompressionMode.Decompress);
        using var file = File.Create(path);
        gzip.CopyTo(file);
    }

    private static async Task RecordAsync(string path, SuiteScale scale)
    {
        await using var recording = await ChildRecording.StartAsync(
            path, "storm", scale.TraceThreads.ToString(CultureInfo.InvariantCulture), scale.TraceSeconds.ToString(CultureInfo.InvariantCulture));
        await recording.CompleteAsync(TimeSpan.FromMinutes(5));
    }

    private static string CountPath(string tracePath) => tracePath + ".events";
}
