using System.Globalization;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Traces;
using Xunit.Abstractions;

namespace TailDb.Analyzer.Tests.Recording;

/// <summary>
/// The analyzer on a trace recorded by dotnet-trace, not by our own recorder: the workload's forced
/// gen2 GCs must be found, and the same file, mutated, must end in a report or one line.
/// </summary>
public sealed class DotnetTraceRecordingTests(DotnetTraceRecording recording, ITestOutputHelper output) : IClassFixture<DotnetTraceRecording>
{
    [DotnetTraceFact]
    public void SlowestOnADotnetTraceRecordingPairsEveryRequestAndFindsTheForcedGen2Gcs()
    {
        var report = SlowestAnalysis.Run(new SlowestSettings(recording.Trace!, RequestSelection.Default), new NetTraceStackSampleReader());
        output.WriteLine(report.Verdict);

        var requests = Assert.Single(report.Population.Activities);
        Assert.Equal(3000, requests.Count);
        Assert.Contains(report.Causes, c => c.Kind == CauseKind.GcPause && c.Cause.StartsWith("gen2", StringComparison.Ordinal) && c.SlowTotal > 0);
        Assert.Contains("gen2 GC pauses", report.Verdict, StringComparison.Ordinal);
    }

    [DotnetTraceFact]
    public async Task MutatedDotnetTraceRecordingsEndInAReportOrOneLine()
    {
        int inputs = int.TryParse(Environment.GetEnvironmentVariable("TAILDB_FUZZ_INPUTS"), NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n > 0 ? n : 64;
        await TraceFuzzTests.FuzzAsync(recording.Trace!, recording.Directory, inputs, seed: 15, output.WriteLine);
    }
}
