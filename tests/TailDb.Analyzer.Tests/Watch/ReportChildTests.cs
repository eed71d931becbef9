using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Recording;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// A capture's report runs in a child process of the analyzer's own assembly: it writes what the
/// in-process report wrote, and whatever goes wrong with it (a bad file, a timeout) becomes the
/// capture's verdict, never an exception in the watch.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class ReportChildTests(WorkloadTraces traces) : IDisposable
{
    private static readonly Trigger GcTrigger = new(TriggerKind.GcPause, "gc", 0, 0, 100, 30, "GC pause 30 ms >= --gc-pause-ms 20");
    private readonly string _directory = WatchTargets.NewDirectory("report");

    [Fact]
    public async Task TheChildWritesTheReportFilesAndTheSameVerdictAsTheAnalysisInProcess()
    {
        var child = Copy("child.nettrace");
        var inProcess = Copy("in-process.nettrace");

        var verdict = await ReportChild.RunAsync(child, GcTrigger, RequestSelection.TailDb, TimeSpan.FromMinutes(5));

        var expected = CaptureReport.TriggerVerdict(CaptureReport.Write(inProcess, GcTrigger, RequestSelection.TailDb), GcTrigger);
        Assert.Equal(expected, verdict);
        Assert.Equal(File.ReadAllText(Path.ChangeExtension(inProcess, ".txt")).Replace("in-process", "child", StringComparison.Ordinal), File.ReadAllText(Path.ChangeExtension(child, ".txt")));
        Assert.True(File.Exists(Path.ChangeExtension(child, ".json")));
    }

    [Fact]
    public async Task AnUnreadableCaptureBecomesAReportFailedVerdict()
    {
        var capture = Path.Combine(_directory, "garbage.nettrace");
        File.WriteAllBytes(capture, [.. "Nettrace"u8, 1, 2, 3]);

        var verdict = await ReportChild.RunAsync(capture, GcTrigger, RequestSelection.TailDb, TimeSpan.FromMinutes(5));

        Assert.StartsWith($"{ReportChild.FailedPrefix}exit {(int)ExitCode.BadTrace}: error: ", verdict, StringComparison.Ordinal);
        Assert.Equal([capture], Directory.GetFiles(_directory, "garbage.*"));
    }

    [Fact]
    public async Task AReportPastItsTimeoutIsKilledAndItsVerdictSaysSoLeavingNoPartialFile()
    {
        var capture = Copy("slow.nettrace");

        var verdict = await ReportChild.RunAsync(capture, GcTrigger, RequestSelection.TailDb, TimeSpan.Zero);

        Assert.StartsWith($"{ReportChild.FailedPrefix}no result within 0 s", verdict, StringComparison.Ordinal);
        Assert.Equal([capture], Directory.GetFiles(_directory));
    }

    [Fact]
    public void TheChildIsThisAnalyzersOwnAssemblyWithTheSelectionAndTheTrigger()
    {
        var start = ReportChild.StartInfo(ReportChild.Arguments("c.nettrace", GcTrigger, new RequestSelection("Microsoft.AspNetCore.Hosting", ["Request"])), ReportChild.HeapLimitFor(64L << 20));
        var arguments = start.ArgumentList.ToList();

        Assert.Contains(typeof(ReportChild).Assembly.Location, arguments);
        Assert.Equal(["capture-report", "c.nettrace", "--trigger-kind", "gcpause"], arguments.SkipWhile(a => a != "capture-report").Take(4));
        Assert.Equal(["--provider", "Microsoft.AspNetCore.Hosting", "--activity", "Request"], arguments.TakeLast(4));
        // The default selection is left to the capture (a load test's Request, else TailDb's), as `slowest` does.
        Assert.DoesNotContain("--provider", ReportChild.Arguments("c.nettrace", GcTrigger, RequestSelection.Default));
        Assert.False(start.Environment.ContainsKey("DOTNET_DiagnosticPorts"));
        // A 64 MiB capture: 512 MiB + 16 x 64 MiB of heap at most.
        Assert.Equal("60000000", start.Environment["DOTNET_GCHeapHardLimit"]);
    }

    [Fact]
    public async Task TheChildRunsUnderItsHeapLimitAndFailsWhenTheAnalysisCannotFitInIt()
    {
        // The limit is the environment's: a 1 MiB heap cannot hold the analysis of any capture.
        var capture = Copy("tiny-heap.nettrace");
        var start = ReportChild.StartInfo(ReportChild.Arguments(capture, GcTrigger, RequestSelection.Default), 1L << 20);
        using var process = System.Diagnostics.Process.Start(start)!;
        var error = await process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();

        Assert.True(process.ExitCode != 0, $"a child under a 1 MiB heap limit exited 0: {error}");
        Assert.Equal([capture], Directory.GetFiles(_directory));
    }

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private string Copy(string name)
    {
        var path = Path.Combine(_directory, name);
        File.Copy(traces.Snapshot, path);
        return path;
    }
}
