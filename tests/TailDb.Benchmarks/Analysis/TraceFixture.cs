using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using TailDb.Analyzer.Tests.TraceGen.Recording;
using TailDb.Benchmarks.Configuration;

namespace TailDb.Benchmarks.Analysis;

/// <summary>
/// The trace the analyzer benchmarks parse: the stacks engineer's `storm` workload (TailDb
/// Get/Put activities with nested FileRead/Fsync, frequent gen0 GCs, CPU in named frames),
/// recorded as a suspended child with the one provider list every recording uses, samples on.
/// Generated once per suite run and scale (the host clears the cache when a run starts) and
/// shared by the benchmark processes, with its event count beside it for the Events/s column.
/// </summary>
public static class TraceFixture
{
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

    /// <summary>Returns the trace for <paramref name="scale"/>, recording it first if this run has none yet.</summary>
    public static string Ensure(SuiteScale scale)
    {
        var path = TracePath(scale);
        if (File.Exists(path) && File.Exists(CountPath(path)))
        {
            return path;
        }

        Directory.CreateDirectory(CacheDirectory);
        var partial = path + ".partial";
        RecordAsync(partial, scale).GetAwaiter().GetResult();
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

    private static async Task RecordAsync(string path, SuiteScale scale)
    {
        await using var recording = await ChildRecording.StartAsync(
            path, "storm", scale.TraceThreads.ToString(CultureInfo.InvariantCulture), scale.TraceSeconds.ToString(CultureInfo.InvariantCulture));
        await recording.CompleteAsync(TimeSpan.FromMinutes(5));
    }

    private static string CountPath(string tracePath) => tracePath + ".events";
}
