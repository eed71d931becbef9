using System.Text.Json;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Tests.Harness;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>The command line as a user runs it: the harness starts the TailDb server, drives it, stops it.</summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class TargetEndToEndTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-target-e2e-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task TailDbServerTargetGivesANetworkedRowPerModeAndAllocatesNothingWhileMeasuring()
    {
        string json = Path.Combine(_scratch.FullName, "run.json");

        var run = await LoadTestProcess.RunAsync(
            ["--gc", "workstation,server", "--target", "in-process,taildb-server", "--out", json, "--app-alloc", "0", .. LoadTestProcess.ShortRun], timeoutSeconds: 300);

        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        var report = JsonSerializer.Deserialize<RunReport>(File.ReadAllText(json), WorkerResult.Json)!;
        Assert.Equal(["workstation in-process", "workstation taildb-server", "server in-process", "server taildb-server"], report.Modes.Select(m => $"{m.Mode} {m.Result!.Target}"));
        foreach (WorkerResult networked in report.Modes.Select(m => m.Result!).Where(r => r.Client is not null))
        {
            Assert.Equal(networked.Operations, networked.Overall.Corrected.Count);
            Assert.Equal(0, networked.Client!.Counts.Failures);
            Assert.NotNull(networked.ServerGc);
            // The client under test allocates nothing per request: not one gen0 budget in the phase.
            Assert.True(networked.GcDuringMeasurement.AllocatedBytes < 256 * 1024, $"the client allocated {networked.GcDuringMeasurement.AllocatedBytes} B while measuring");
            Assert.Equal(0, networked.GcDuringMeasurement.Total);
        }

        Assert.Contains("taildb-server", run.Stdout, StringComparison.Ordinal);
        Assert.Contains("client workstation → taildb-server", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATracedServerRunIsReadByTheAnalyzerAsTheMeasuredPhasesCommands()
    {
        string trace = Path.Combine(_scratch.FullName, "server.nettrace");
        string json = Path.Combine(_scratch.FullName, "server.json");

        // A minute's timeout: a retry would reach the server twice and the counts could not match.
        var run = await LoadTestProcess.RunAsync(
            ["--gc", "workstation", "--target", "taildb-server", "--trace", trace, "--sampler", "off", "--out", json, "--timeout-ms", "60000", .. LoadTestProcess.ShortRun],
            timeoutSeconds: 300);

        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        WorkerResult loadTest = Assert.Single(JsonSerializer.Deserialize<RunReport>(File.ReadAllText(json), WorkerResult.Json)!.Modes).Result!;
        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), stackReader: null);

        ActivityStats commands = Assert.Single(report.Population.Activities);
        Assert.Equal("Command", commands.Name);
        Assert.Equal(LatencyBasis.Response, report.Population.Basis);
        Assert.StartsWith("the measured phase", report.Population.Range, StringComparison.Ordinal);
        Assert.Contains("server.phases.json", report.Population.Range, StringComparison.Ordinal);
        // The server saw exactly the requests the client measured.
        Assert.Equal(0, loadTest.Client!.Counts.Retries);
        Assert.Equal(loadTest.Operations, commands.Count);
    }

    [Theory]
    [InlineData(ExitCode.TargetUnreachable, "cannot connect", "redis://127.0.0.1:1")]
    [InlineData(ExitCode.InvalidArguments, "--target must be", "http://127.0.0.1:6379")]
    [InlineData(ExitCode.InvalidArguments, "--inject works in-process only", "taildb-server", "--inject", "gc:every=1s")]
    [InlineData(ExitCode.InvalidArguments, "not ours to trace", "redis://127.0.0.1:1", "--trace", "x.nettrace")]
    public async Task BadTargetInputPrintsOneLine(ExitCode code, string named, string target, params string[] more)
    {
        var result = await LoadTestProcess.RunAsync(["--target", target, .. more, .. LoadTestProcess.ShortRun]);

        Assert.Equal((int)code, result.ExitCode);
        Assert.Contains(named, result.OneErrorLine(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AServerAnsweringWithErrorsEndsInOneLineAndItsExitCode()
    {
        using var server = new FakeRespServer((_, command) => command == "SET" ? "-ERR out of memory\r\n" : FakeRespServer.Normal(command));

        var result = await LoadTestProcess.RunAsync(["--target", $"redis://127.0.0.1:{server.Port}", .. LoadTestProcess.ShortRun]);

        Assert.Equal((int)ExitCode.TargetFailed, result.ExitCode);
        Assert.Contains("-ERR out of memory", result.OneErrorLine(), StringComparison.Ordinal);
    }
}
