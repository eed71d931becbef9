using System.Diagnostics;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

/// <summary>
/// `watch` end to end on real processes: the ground-truth workload with one forced gen2 GC, and an
/// ASP.NET Core minimal-API app (Microsoft.AspNetCore.Hosting's own Request activity) driven with
/// HttpClient on 127.0.0.1. Each capture must open with TraceEvent's EventPipeEventSource and with
/// `slowest`, hold the slow request's whole window, and its report must name the cause.
/// </summary>
[Collection(RunsAlone.Name)]
public sealed class WatchCaptureTests
{
    [Fact]
    public async Task OverP99CapturesTheInjectedGcRequestsWholeWindowAndItsReportNamesTheGc()
    {
        const int injected = 4000;
        var captures = WatchTargets.NewDirectory("p99");
        // No practical capture limit: at load 40 the scheduler's own slow requests used up the
        // default 10 captures before the injected one (request 4,000 of 5,000) came.
        var settings = WatchTargets.Settings(captures, new TriggerSettings(null, OverP99: 5, null), maxCaptures: 1000);
        var output = new StringWriter();
        var (end, stats, results) = await WatchRunner.RunAsync(settings,
            new WatchTarget.Launch(["dotnet", "exec", WatchTargets.Workload, "--requests", "5000", "--gap-us", "1000", "--gc", $"{injected}"]),
            output, interactive: false, CancellationToken.None).WaitAsync(TimeSpan.FromMinutes(3));

        Assert.Equal(WatchEnd.TargetExited, end);
        Assert.Equal(5000, stats.Requests);
        var expectedBytes = 64 + injected;
        // Later captures' 10 s windows hold it too; its own capture is the earliest that does (a
        // capture written before it stopped cannot hold its Stop). Its trigger is the injected
        // request, unless a slower scheduler stall was pending and it merged into that capture.
        var capture = results.Where(r => RowsFields(r.Path).Any(f => f.GetValueOrDefault("valueBytes") == expectedBytes)).MinBy(r => r.Trigger.StartMSec);
        Assert.NotNull(capture);
        AssertSlowestReads(capture.Path, RequestSelection.TailDb);
        AssertCarriesTheRundown(capture);
        Assert.Equal(TriggerKind.OverP99, capture.Trigger.Kind);
        Assert.True(File.Exists(Path.ChangeExtension(capture.Path, ".txt")));
        Assert.True(File.Exists(Path.ChangeExtension(capture.Path, ".json")));

        // TraceEvent reads the file alone and sees the injected request's Start and Stop, with events before and the margin after.
        var view = WatchTargets.ReadWithTraceEvent(capture.Path, "TailDb");
        var stop = Assert.Single(view.Requests, r => r.Name.EndsWith("Stop", StringComparison.Ordinal) && r.Payload.Contains($"valueBytes={expectedBytes}", StringComparison.Ordinal));
        // The session leaves TPL's activity ids off for TailDb (the store sets its own; this workload sets none): its Start by its key hash.
        var keyHash = (long)unchecked((uint)(injected * 2654435761L));
        var start = Assert.Single(view.Requests, r => r.Name.EndsWith("Start", StringComparison.Ordinal) && r.Payload.Contains($"keyHash={keyHash}", StringComparison.Ordinal));
        Assert.True(view.FirstMSec < start.MSec, $"the capture starts at {view.FirstMSec} ms, after the request's start {start.MSec} ms");
        Assert.True(view.LastMSec >= stop.MSec + 200, $"the capture ends at {view.LastMSec} ms, within the margin after the stop {stop.MSec} ms");
        double injectedMs = stop.MSec - start.MSec;
        if (Math.Abs(capture.Trigger.DurationMSec - injectedMs) <= 0.01)
        {
            Assert.Contains("gen2 GC", capture.Verdict, StringComparison.Ordinal);
        }
        else
        {
            Assert.True(capture.Trigger.DurationMSec > injectedMs, $"merged into a capture whose trigger ({capture.Trigger.DurationMSec} ms) is not the slower request ({injectedMs} ms)");
            Assert.Contains("gen2 GC", File.ReadAllText(Path.ChangeExtension(capture.Path, ".txt")), StringComparison.Ordinal);
        }
        Directory.Delete(captures, recursive: true);
    }

    [Fact]
    public async Task AspNetCoreRequestThatForcesAGen2GcIsCapturedAndItsReportShowsThePath()
    {
        const int gcAt = 30;
        var captures = WatchTargets.NewDirectory("aspnet");
        var port = WatchTargets.FreeLoopbackPort();
        var settings = WatchTargets.Settings(captures, new TriggerSettings(5, null, null),
            new RequestSelection("Microsoft.AspNetCore.Hosting", ["Request"]));
        using var stop = new CancellationTokenSource();
        var watch = WatchRunner.RunAsync(settings,
            new WatchTarget.Launch(["dotnet", "exec", WatchTargets.AspNetApp, "--urls", $"http://127.0.0.1:{port}", "--gc-at", $"{gcAt}"]),
            new StringWriter(), interactive: false, stop.Token);

        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}"), Timeout = TimeSpan.FromSeconds(10) };
        await WaitUntilServingAsync(client, watch);
        // Warm-up (JIT): slow first requests are captured too; let their capture go before the GC request.
        for (var i = 100; i < 120; i++)
        {
            await client.GetStringAsync(new Uri($"/work/{i}", UriKind.Relative));
        }

        await Task.Delay(TimeSpan.FromSeconds(2.5));
        for (var i = 0; i < 50; i++)
        {
            Assert.Equal($"ok {i}", await client.GetStringAsync(new Uri($"/work/{i}", UriKind.Relative)));
        }

        await Task.Delay(TimeSpan.FromSeconds(2.5));
        await stop.CancelAsync();
        var (end, _, results) = await watch.WaitAsync(TimeSpan.FromMinutes(2));

        Assert.Equal(WatchEnd.Cancelled, end);
        // The capture the GC request triggered itself: on a busy box a later slow request's window can
        // hold it too (two reports named its path in the flaky loop at load 30).
        var capture = Assert.Single(results, r => r.Verdict.Contains($"trigger request (method=GET path=/work/{gcAt})", StringComparison.Ordinal));
        AssertSlowestReads(capture.Path, settings.Selection);
        Assert.StartsWith("Trigger request: Request", FirstRowNote(capture.Path), StringComparison.Ordinal);
        // The one line per capture (the live view's, the report child's verdict) names the request by its path.
        Assert.Contains($"of the trigger request (method=GET path=/work/{gcAt})", capture.Verdict, StringComparison.Ordinal);
        // The listed request shows its string payload fields, and the path is correlated as a category.
        var text = File.ReadAllLines(Path.ChangeExtension(capture.Path, ".txt"));
        Assert.Contains(text, l => l.TrimStart().StartsWith("#1 Request", StringComparison.Ordinal) && l.Contains($"method=GET path=/work/{gcAt}", StringComparison.Ordinal));
        Assert.Contains(text, l => l.Contains("Request.path (categorical", StringComparison.Ordinal) && l.Contains("/work/{n}", StringComparison.Ordinal));
        // The trigger request's own causes name the GC (on a busy box a runtime suspension can overlap it as much).
        Assert.Contains("gen2 GC pauses", FirstRowCauses(capture.Path));
        var view = WatchTargets.ReadWithTraceEvent(capture.Path, "Microsoft.AspNetCore.Hosting");
        Assert.Contains(view.Requests, r => r.Payload.Contains($"path=/work/{gcAt}", StringComparison.Ordinal));
        Console.WriteLine($"ASP.NET Core capture verdict: {capture.Verdict}");
        Directory.Delete(captures, recursive: true);
    }

    private static async Task WaitUntilServingAsync(HttpClient client, Task watch)
    {
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            Assert.False(watch.IsCompleted, "the watch ended before the app served a request");
            try
            {
                await client.GetStringAsync(new Uri("/work/1000", UriKind.Relative));
                return;
            }
            catch (HttpRequestException) when (deadline.Elapsed < TimeSpan.FromSeconds(60))
            {
                // Kestrel is not listening yet (the app starts suspended until the session is up).
                await Task.Delay(100);
            }
        }
    }

    /// <summary>The first row of the report written next to the capture (the trigger request).</summary>
    internal static Dictionary<string, long> FirstRowFields(string capture)
    {
        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(capture, ".json")));
        var rows = json.RootElement.GetProperty("slowest");
        return rows.GetArrayLength() == 0 ? [] : rows[0].GetProperty("fields").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetInt64());
    }

    private static List<Dictionary<string, long>> RowsFields(string capture)
    {
        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(capture, ".json")));
        return [.. json.RootElement.GetProperty("slowest").EnumerateArray().Select(row => row.GetProperty("fields").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetInt64()))];
    }

    private static List<string> FirstRowCauses(string capture)
    {
        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(capture, ".json")));
        return [.. json.RootElement.GetProperty("slowest")[0].GetProperty("causes").EnumerateArray().Select(c => c.GetProperty("cause").GetString() ?? "")];
    }

    private static string FirstRowNote(string capture)
    {
        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(capture, ".json")));
        return json.RootElement.GetProperty("notes")[0].GetString() ?? "";
    }

    /// <summary>`slowest` reads the capture alone: requests paired, stacks read.</summary>
    /// <summary>
    /// The capture holds the rundown asked for when it was written (TraceEvent's rundown parser reads
    /// its MethodDCEndVerbose events, CoreLib's ReadyToRun methods among them, which no session
    /// MethodLoad names), and the stack reader names the samples' frames with it.
    /// </summary>
    internal static void AssertCarriesTheRundown(CaptureResult capture)
    {
        Assert.Null(capture.RundownProblem);
        var methods = new List<string>();
        using (var source = new EventPipeEventSource(capture.Path))
        {
            new ClrRundownTraceEventParser(source).MethodDCStopVerbose += data => methods.Add($"{data.MethodNamespace}.{data.MethodName}");
            source.Process();
        }

        Assert.True(methods.Count > 100, $"{methods.Count} rundown methods");
        Assert.Contains(methods, m => m.StartsWith("System.Threading.", StringComparison.Ordinal));
        var stacks = new NetTraceStackSampleReader().Read(capture.Path);
        Assert.True(stacks.Samples.Count > 0);
        Assert.True(stacks.UnresolvedFrames * 10 < stacks.Stacks.Sum(s => s.Count), $"{stacks.UnresolvedFrames} frames unresolved of {stacks.Stacks.Sum(s => s.Count)}");
    }

    internal static void AssertSlowestReads(string capture, RequestSelection selection)
    {
        var report = SlowestAnalysis.Run(new SlowestSettings(capture, selection, 1, null, 10), new NetTraceStackSampleReader());
        Assert.True(report.Population.Requests > 0);
        Assert.Null(report.Trace.Truncation);
    }
}
