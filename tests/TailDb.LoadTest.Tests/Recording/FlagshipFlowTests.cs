using System.Text.Json;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Recording;

/// <summary>
/// The README's flow, short: the default workload under workstation, server and nogc, traced in one
/// load-test run, then each trace through `slowest` at its defaults (with stacks, as the CLI reads
/// them). The analyzer's p99 must be the load test's, workstation's verdict must name GC, nogc's
/// must not. TAILDB_FLAGSHIP_SECONDS sets the measured seconds (default 4; the README's is 10).
/// </summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class FlagshipFlowTests(ITestOutputHelper output) : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-flagship-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task The_readme_flow_gives_the_load_tests_p99_and_blames_GC_only_where_there_is_GC()
    {
        string seconds = Environment.GetEnvironmentVariable("TAILDB_FLAGSHIP_SECONDS") ?? "4";
        string trace = Path.Combine(_scratch.FullName, "flow.nettrace");
        string json = Path.Combine(_scratch.FullName, "flow.json");
        var run = await LoadTestProcess.RunAsync(
            ["--gc", "workstation,server,nogc", "--trace", trace, "--out", json, "--duration", seconds, "--warmup", "2"], timeoutSeconds: 600);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        output.WriteLine(run.Stdout);
        var modes = JsonSerializer.Deserialize<RunReport>(File.ReadAllText(json), WorkerResult.Json)!.Modes;

        var verdicts = new Dictionary<string, VerdictSection?>();
        var largestEventCause = new Dictionary<string, CauseKind?>();
        var gcInTail = new Dictionary<string, bool>();
        var starved = new Dictionary<string, bool>();
        foreach (ModeEntry mode in modes)
        {
            string modeTrace = HarnessOptions.TracePathFor(trace, mode.Mode, modes.Count);
            SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(modeTrace, RequestSelection.Default), StackReaders.Create(StackReaderKind.NetTrace));
            ActivityStats requests = Assert.Single(report.Population.Activities);
            var corrected = mode.Result!.Overall.Corrected;
            output.WriteLine($"{mode.Mode}: load test p50/p99/p99.9 {corrected.P50 / 1e6:0.###}/{corrected.P99 / 1e6:0.###}/{corrected.P999 / 1e6:0.###} ms, " +
                $"analyzer {requests.P50Ms:0.###}/{requests.P99Ms:0.###}/{requests.P999Ms:0.###} ms ({report.Population.Basis}); verdict: {report.Verdict}");

            Assert.Equal(corrected.Count, requests.Count);
            double expectedMs = corrected.P99 / 1e6;
            Assert.True(Math.Abs(requests.P99Ms - expectedMs) <= Math.Max(expectedMs * 0.05, 0.002),
                $"{mode.Mode}: analyzer p99 {requests.P99Ms} ms, load test {expectedMs} ms");
            verdicts[mode.Mode] = report.VerdictDetail;
            largestEventCause[mode.Mode] = LargestEventBasedCause(report);
            gcInTail[mode.Mode] = GcOverRepresented(report);

            // Half the requests waited longer than 99% of service times took: the open-loop sender
            // itself could not keep to the schedule, so the machine (not the app) made the tail.
            // Likewise when the analyzer finds most of the slow set's time is the sampler's own
            // suspensions (93% in a flaky-loop run at load 21): the measurement made that tail.
            // And when the p99 is longer than every GC pause of the measured phase put together, no GC
            // can have made it (a CI run at load 9.3, beside another session's benchmarks: workstation
            // p99 151.9 ms against 62.4 ms of GC pauses in all, 83% of the slow set's time a load
            // thread asleep past its schedule).
            // And when the verdict itself leads with the load generator, the machine or the
            // measurement (a CI run at load 2.4: the pacing wait woke late for 89% of the slow set's
            // time, workstation p99.9 23.7 ms), it says so first and GC's place comes after.
            starved[mode.Mode] = corrected.P50 > mode.Result!.Overall.Uncorrected.P99
                || (report.VerdictDetail is { } detail && Verdicts.MadeBy(detail) != TailMaker.App)
                || (mode.Mode == "workstation" && corrected.P99 / 1e6 > mode.Result.GcDuringMeasurement.PauseMilliseconds);
            output.WriteLine($"{mode.Mode}: largest event-based cause of the slow set: {largestEventCause[mode.Mode]}; GC pauses over-represented in it: {gcInTail[mode.Mode]}");
        }

        // The verdict may rest on CPU samples (the threshold is far above the sampling interval);
        // on this shared 2-core machine a load thread that overslept its schedule while others
        // built ("samples: blocked / sleeping") can outweigh GC in a 4 s run, so the GC claim is
        // checked on the event-based causes, which the machine's load does not invent. At load 20-30
        // (a stress loop and two builds beside it) the cache evictor, starved of CPU, stretched its
        // windows past GC's once (28% against GC's share): so GC must be in the tail, over-represented,
        // and it must be the largest event-based cause unless another cause is.
        // When the machine starved the sender (a flaky-loop run at load 22: p50 0.745 ms against an
        // uncorrected p99 of 0.069 ms, p99 637 ms, no event-based cause at all) GC cannot be checked.
        if (starved["workstation"])
        {
            output.WriteLine("workstation: the machine starved the run (p50 above the uncorrected p99, a verdict that leads with the load generator, the machine or the measurement, or a p99 longer than all GC pauses together); GC's place in its tail is not checked");
        }
        else
        {
            Assert.True(gcInTail["workstation"], "workstation: GC pauses are not over-represented in the slow set");
            Assert.Contains(largestEventCause["workstation"], new CauseKind?[] { CauseKind.GcPause, CauseKind.StoreUpkeep });
        }

        Assert.NotEqual(CauseKind.GcPause, verdicts["nogc"]?.Kind);
        Assert.NotEqual(CauseKind.GcPause, largestEventCause["nogc"]);
    }

    /// <summary>Whether GC pauses take a larger share of the slow set's time than of the rest's (or only the slow set has them).</summary>
    private static bool GcOverRepresented(SlowestReport report) => report.Causes
        .Any(c => c.Kind == CauseKind.GcPause && c.Unit == CauseUnit.Milliseconds && c.SlowTotal > 0 && (c.Lift is null or > 1));

    /// <summary>The app's largest event-based cause of the slow set's time (not the measurement's, not queueing behind earlier requests).</summary>
    private static CauseKind? LargestEventBasedCause(SlowestReport report) => report.Causes
        .Where(c => c.Unit == CauseUnit.Milliseconds && !c.Measurement && c.Kind is not (CauseKind.Samples or CauseKind.TracingSamples or CauseKind.EarlierRequests) && c.SlowTotal > 0)
        .OrderByDescending(c => c.SlowTotal)
        .Select(c => (CauseKind?)c.Kind)
        .FirstOrDefault();
}
