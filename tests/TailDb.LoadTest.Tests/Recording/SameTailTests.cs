using System.Text.Json;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Tests.Harness;

namespace TailDb.LoadTest.Tests.Recording;

/// <summary>
/// The product's promise: the tail the load test reports is the tail the analyzer explains. One
/// traced run; the analyzer, at its defaults, must count the same requests of the measured phase and
/// find the same corrected percentiles (response time from the intended start).
/// </summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class SameTailTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-same-tail-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task AnalyzerPercentilesOfTheMeasuredPhaseAreTheLoadTestsCorrectedOnes()
    {
        string trace = Path.Combine(_scratch.FullName, "run.nettrace");
        string json = Path.Combine(_scratch.FullName, "run.json");

        var run = await LoadTestProcess.RunAsync(
            ["--gc", "workstation", "--trace", trace, "--out", json, "--duration", "3", "--warmup", "1", "--keys", "5000", "--rate", "2000"],
            timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        LatencySummary loadTest = ReadOverallCorrected(json);

        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), stackReader: null);

        Assert.Equal(0, report.Trace.EventsLost);
        Assert.Equal(LatencyBasis.Response, report.Population.Basis);
        Assert.StartsWith("the measured phase", report.Population.Range, StringComparison.Ordinal);
        ActivityStats requests = Assert.Single(report.Population.Activities);
        Assert.Equal(loadTest.Count, requests.Count);
        AssertSamePercentile("p50", loadTest.P50, requests.P50Ms);
        AssertSamePercentile("p99", loadTest.P99, requests.P99Ms);
        AssertSamePercentile("p99.9", loadTest.P999, requests.P999Ms);

        // buckets ranks the same requests by the same latency: the load test's Request activity, not the store calls inside.
        string buckets = Path.Combine(_scratch.FullName, "buckets.json");
        TailDb.Analyzer.Commands.BucketsCommand.Run(new(new FileInfo(trace), RequestSelection.Default, ReportFormat.Json, new FileInfo(buckets)));
        using var document = JsonDocument.Parse(File.ReadAllText(buckets));
        Assert.Equal(loadTest.Count, document.RootElement.GetProperty("requests").GetInt64());
        JsonElement p99 = document.RootElement.GetProperty("rows").EnumerateArray().Single(r => r.GetProperty("percentile").GetDouble() == 99);
        Assert.Equal(requests.P99Ms, p99.GetProperty("exactMs").GetDouble());
    }

    [Fact]
    public async Task EveryPhaseCanBeChosenAndTheWholeTraceHasMoreRequestsThanTheMeasuredPhase()
    {
        string trace = Path.Combine(_scratch.FullName, "phases.nettrace");
        var run = await LoadTestProcess.RunAsync(["--gc", "workstation", "--trace", trace, "--sampler", "off", .. LoadTestProcess.ShortRun], timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");

        long Count(PhaseChoice phase) =>
            SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default, Scope: new ScopeSettings(phase)), stackReader: null).Population.Requests;

        long measured = Count(PhaseChoice.Measured);
        long warmup = Count(PhaseChoice.Warmup);
        Assert.Equal(measured, Count(PhaseChoice.Auto));
        Assert.True(measured > 0 && warmup > 0, $"measured {measured}, warm-up {warmup}");
        Assert.Equal(measured + warmup, Count(PhaseChoice.All));

        // A watch capture's report covers its whole window, whatever phases it marks (one taken during the fill marks no measured phase).
        var trigger = new TailDb.Analyzer.Watch.Trigger(TailDb.Analyzer.Watch.TriggerKind.GcPause, "gc", 0, 0, 0, 1, "a GC pause");
        var capture = TailDb.Analyzer.Watch.CaptureReport.Write(trace, trigger, RequestSelection.Default).Report;
        Assert.StartsWith("the whole trace, every phase", capture.Population.Range, StringComparison.Ordinal);
        Assert.Equal(measured + warmup, capture.Population.Requests);

        // The HTML timeline gets the phases as boundaries and each dot's queue part.
        string html = Path.Combine(_scratch.FullName, "phases.html");
        TailDb.Analyzer.Commands.SlowestCommand.Run(new TailDb.Analyzer.Commands.SlowestCommand.Settings(
            new FileInfo(trace), 1, null, RequestSelection.Default, 5, TailDb.Analyzer.Reports.ReportFormat.Html, new FileInfo(html)));
        string page = File.ReadAllText(html);
        foreach (string phase in new[] { "fill", "warm-up", "measured" })
        {
            Assert.Contains($"\"name\":\"{phase}\"", page, StringComparison.Ordinal);
        }

        Assert.Contains("\"queue\":[", page, StringComparison.Ordinal);
    }

    /// <summary>
    /// Within 0.5% or 0.5 µs: the analyzer ends each request at the load test's own clock read (the
    /// RequestStop's stopTimestamp), so only HdrHistogram's bucket (at most 0.1%) and the clock's
    /// conversion to trace milliseconds stand between them.
    /// </summary>
    private static void AssertSamePercentile(string name, long loadTestNanoseconds, double analyzerMs)
    {
        double expectedMs = loadTestNanoseconds / 1e6;
        double tolerance = Math.Max(expectedMs * 0.005, 0.0005);
        Assert.True(Math.Abs(analyzerMs - expectedMs) <= tolerance,
            $"{name}: analyzer {analyzerMs:0.####} ms, load test {expectedMs:0.####} ms (tolerance {tolerance:0.####} ms)");
    }

    private static LatencySummary ReadOverallCorrected(string path)
    {
        var report = JsonSerializer.Deserialize<RunReport>(File.ReadAllText(path), WorkerResult.Json)!;
        return Assert.Single(report.Modes).Result!.Overall.Corrected;
    }
}
