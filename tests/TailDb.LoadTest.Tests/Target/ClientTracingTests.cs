// TraceEvent marks StartStopActivity [Obsolete("Not Obsolete but experimental")]: it is what PerfView uses.
#pragma warning disable CS0618
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Tests.Harness;
using C = TailDb.Tracing.LoadTestEventContract;

namespace TailDb.LoadTest.Tests.Target;

/// <summary>
/// The client worker traced against a TailDb server: its requests are Start/Stop activities that
/// end on another thread than they began, with the pool waits and attempts nested in them by
/// activity id, as PerfView's StartStopActivityComputer (over TraceLog) and the analyzer read them.
/// </summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class ClientTracingTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-client-trace-");

    public void Dispose() => _scratch.Delete(recursive: true);

    /// <summary>Records a networked run; returns the client's trace (beside the server's).</summary>
    internal static async Task<string> RecordAsync(DirectoryInfo scratch, IEnumerable<string> args)
    {
        string trace = Path.Combine(scratch.FullName, "server.nettrace");
        var run = await LoadTestProcess.RunAsync(
            ["--gc", "workstation", "--target", "taildb-server", "--trace", trace, "--sampler", "off", .. args], timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        string client = HarnessOptions.ClientTracePathFor(trace);
        Assert.True(File.Exists(client), $"no client trace at {client}\n{run.Stdout}");
        Assert.Contains("client trace workstation", run.Stdout, StringComparison.Ordinal);
        return client;
    }

    /// <summary>Every activity StartStopActivityComputer paired in a trace, as PerfView builds them.</summary>
    internal static List<StartStopActivity> PerfViewActivities(string trace, DirectoryInfo scratch)
    {
        string etlx = TraceLog.CreateFromEventPipeDataFile(trace, Path.Combine(scratch.FullName, Path.GetFileNameWithoutExtension(trace) + ".etlx"));
        var stopped = new List<StartStopActivity>();
        using var log = new TraceLog(etlx);
        TraceLogEventSource source = log.Events.GetSource();
        var computer = new StartStopActivityComputer(source, new ActivityComputer(source, new SymbolReader(TextWriter.Null)));
        computer.Stop += (activity, _) =>
        {
            if (activity.TaskName is C.Activities.Request or C.Activities.PoolWait or C.Activities.Attempt or C.Activities.Retry)
            {
                stopped.Add(activity);
            }
        };
        source.Process();
        return stopped;
    }

    /// <summary>A nested activity's creator is a Request, and it ran inside that request.</summary>
    internal static void AssertNestedInItsRequest(StartStopActivity nested)
    {
        Assert.NotNull(nested.Creator);
        Assert.Equal(C.Activities.Request, nested.Creator!.TaskName);
        const double Slack = 0.001;
        Assert.InRange(nested.StartTimeRelativeMSec, nested.Creator.StartTimeRelativeMSec - Slack, nested.Creator.StartTimeRelativeMSec + nested.Creator.DurationMSec + Slack);
        Assert.True(nested.StartTimeRelativeMSec + nested.DurationMSec <= nested.Creator.StartTimeRelativeMSec + nested.Creator.DurationMSec + Slack,
            $"{nested.TaskName} ends at {nested.StartTimeRelativeMSec + nested.DurationMSec} ms, after its request's stop at {nested.Creator.StartTimeRelativeMSec + nested.Creator.DurationMSec} ms");
    }

    [Fact]
    public async Task A_small_pools_requests_pair_across_threads_with_their_pool_waits_and_attempts_nested_in_them()
    {
        // Eight load threads on one connection: requests wait for it.
        string client = await RecordAsync(_scratch, ["--threads", "8", "--connections", "1", "--pipeline", "1", .. LoadTestProcess.ShortRun]);

        List<StartStopActivity> activities = PerfViewActivities(client, _scratch);
        var requests = activities.Where(a => a.TaskName == C.Activities.Request).ToList();
        var waits = activities.Where(a => a.TaskName == C.Activities.PoolWait).ToList();
        var attempts = activities.Where(a => a.TaskName == C.Activities.Attempt).ToList();
        // ShortRun: 2,000 keys filled and read (4,000 requests), then 1.5 s at 2,000/s.
        Assert.True(requests.Count > 5000, $"StartStopActivityComputer paired {requests.Count} requests");
        Assert.True(attempts.Count >= requests.Count, $"{attempts.Count} attempts for {requests.Count} requests");
        Assert.NotEmpty(waits);
        Assert.All(waits, AssertNestedInItsRequest);
        Assert.All(attempts, AssertNestedInItsRequest);

        // The analyzer reads the same trace: the client's requests, the pool wait a cause inside them.
        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(client, RequestSelection.Default), stackReader: null);
        Assert.Equal(C.Activities.Request, report.Population.Activities.OrderByDescending(a => a.Count).First().Name);
        Assert.Contains(report.Causes, c => c.Cause.StartsWith(C.Activities.PoolWait, StringComparison.Ordinal) && c.SlowShare > 0);
    }
}
