using System.Globalization;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// A long watch with a trigger every ~1.2 s (a forced gen2 GC every 1,000 requests): the ring stays
/// within --max-bytes, the captures written are exactly what --max-captures and --cooldown allow,
/// and every capture opens with TraceEvent and with `slowest`. CI runs 15 s; the note's figure is
/// 60 s: TAILDB_WATCH_ENDURANCE_SECONDS=60.
/// </summary>
[Collection(RunsAlone.Name)]
public sealed class WatchEnduranceTests
{
    // Below what 10 s of this workload takes (~1 MB), so the byte bound, not the window, is what evicts.
    private const long MaxBytes = 512 << 10;

    [Fact]
    public async Task LongWatchStaysWithinMaxBytesAndWritesExactlyTheRateLimitedCapturesAllReadable()
    {
        var seconds = int.Parse(Environment.GetEnvironmentVariable("TAILDB_WATCH_ENDURANCE_SECONDS") ?? "15", CultureInfo.InvariantCulture);
        var requests = seconds * 1000;
        var gcs = string.Join(",", Enumerable.Range(1, (requests / 1000) - 1).Select(i => i * 1000));
        var captures = WatchTargets.NewDirectory("endurance");
        const int maxCaptures = 3;
        var settings = WatchTargets.Settings(captures, new TriggerSettings(8, null, null), maxCaptures: maxCaptures,
            cooldownSeconds: seconds / 6.0, maxBytes: MaxBytes);

        // The watch runs in this process: its memory is this process's growth while it runs.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        long baseline = Environment.WorkingSet, managedBaseline = GC.GetTotalMemory(forceFullCollection: true);
        long peak = baseline, managedPeak = managedBaseline;
        using var sampling = new CancellationTokenSource();
        var sampler = Task.Run(async () =>
        {
            while (!sampling.IsCancellationRequested)
            {
                peak = Math.Max(peak, Environment.WorkingSet);
                managedPeak = Math.Max(managedPeak, GC.GetTotalMemory(forceFullCollection: false));
                await Task.Delay(100).ConfigureAwait(false);
            }
        });
        var (end, stats, results) = await WatchRunner.RunAsync(settings,
            new WatchTarget.Launch(["dotnet", "exec", WatchTargets.Workload, "--requests", $"{requests}", "--gap-us", "1000", "--gc", gcs]),
            new StringWriter(), interactive: false, CancellationToken.None).WaitAsync(TimeSpan.FromSeconds((seconds * 8) + 240)); // A hang guard, not a timing: 120 s ran out at load 28-30 in the flaky loop.
        await sampling.CancelAsync();
        await sampler;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"endurance {seconds} s memory: working set +{(peak - baseline) / 1048576.0:F1} MB at peak (from {baseline / 1048576.0:F0} MB), managed heap +{(managedPeak - managedBaseline) / 1048576.0:F1} MB at peak, --max-bytes {MaxBytes / 1048576.0:F1} MB"));

        Assert.Equal(WatchEnd.TargetExited, end);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"endurance {seconds} s: {stats.Requests:N0} requests, {stats.Triggers} triggers, {results.Count} captures, merged {stats.Merged}, skipped: pending {stats.SkippedPending}, cooldown {stats.SkippedCooldown}, max-captures {stats.SkippedMaxCaptures}; ring peak {stats.PeakRingBytes:N0} B of {MaxBytes:N0}, metadata + method names kept {stats.MethodLoadBytes:N0} B"));

        // Bounded: eviction keeps the ring within --max-bytes after every block, and the whole watch
        // (ring, pairing, captures being written; their reports run in child processes) within
        // --max-bytes plus the constant docs/watch.md states (WatchProcessTests measures it on a full
        // ring from outside the process).
        Assert.InRange(stats.PeakRingBytes, 1, MaxBytes);
        Assert.True(peak - baseline <= MaxBytes + WatchSettings.MemoryConstantBytes, $"working set grew {(peak - baseline) / 1048576.0:F1} MB");
        Assert.Equal(maxCaptures, results.Count);
        // Which limit skips a given trigger depends on the workload's pace (cooldown is event time;
        // at load 40 the forced GCs came further apart than the cooldown and none fell in one), so
        // here only that the limits skipped some; LiveTrackerTests pins each one in event time.
        Assert.True(stats.SkippedCooldown + stats.SkippedMaxCaptures > 0, "no trigger was skipped by --cooldown or --max-captures");
        Assert.Equal(stats.Triggers, stats.AccountedTriggers);
        Assert.Equal(stats.CapturesStarted, results.Count);
        foreach (var capture in results)
        {
            Assert.True(capture.Written, capture.Verdict);
            Assert.True(WatchTargets.ReadWithTraceEvent(capture.Path, "TailDb").Events > 0);
            WatchCaptureTests.AssertSlowestReads(capture.Path, RequestSelection.TailDb);
        }

        // Scheduler noise on a shared box (or the start-up) can be a trigger too; the forced GCs are seen.
        Assert.Contains(results, r => File.ReadAllText(Path.ChangeExtension(r.Path, ".txt")).Contains("gen2 GC pauses", StringComparison.Ordinal));

        Assert.Empty(Directory.GetFiles(captures, "*.partial"));
        Directory.Delete(captures, recursive: true);
    }
}
