// TraceEvent marks StartStopActivity [Obsolete("Not Obsolete but experimental")]: it is what PerfView uses.
#pragma warning disable CS0618
using System.Text.Json;
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using TailDb.Analyzer;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Tests.Harness;
using TailDb.Tracing;

namespace TailDb.LoadTest.Tests.Recording;

/// <summary>
/// --trace-level on real load-test recordings (in-process and against the TailDb server), read as
/// PerfView reads them: TraceEvent's StartStopActivityComputer over TraceLog. Every level must pair
/// every request, and at the store level nest the store's activities in the request that made
/// them; and `slowest` must still give its verdict on a trace of requests only, saying what such a
/// trace cannot name.
/// </summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class TraceLevelTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-trace-level-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task At_requests_level_PerfView_pairs_every_load_test_request_and_the_trace_has_no_store_request_events()
    {
        var (trace, _) = await RecordAsync("requests", "in-process");
        var view = PerfViewActivities.Read(trace, _scratch);

        Assert.True(view.Stopped("Request").Count > 1000, $"{view.Stopped("Request").Count} Requests paired");
        Assert.Equal(view.Starts(LoadTestEventContract.ProviderName, LoadTestEventContract.EventIds.RequestStart), view.Stopped("Request").Count);
        Assert.All(view.Stopped("Request"), r => Assert.Null(r.Creator));
        Assert.Equal(0, view.Starts(TailDbEventContract.ProviderName, TailDbEventContract.EventIds.GetStart, TailDbEventContract.EventIds.PutStart, TailDbEventContract.EventIds.FileReadStart));
    }

    [Fact]
    public async Task At_store_level_PerfView_nests_each_store_Get_in_its_load_test_Request_and_each_FileRead_in_its_Get()
    {
        var (trace, _) = await RecordAsync("store", "in-process");
        var view = PerfViewActivities.Read(trace, _scratch);

        var requests = view.Stopped("Request");
        Assert.True(requests.Count > 1000, $"{requests.Count} Requests paired");
        Assert.Equal(view.Starts(LoadTestEventContract.ProviderName, LoadTestEventContract.EventIds.RequestStart), requests.Count);
        // The store's calls made by requests nest in them; the fill's, before the first request, have no creator.
        double firstRequest = requests.Min(r => r.StartTimeRelativeMSec);
        var gets = view.Stopped("Get");
        Assert.True(gets.Count(g => g.Creator is not null) > 900, $"{gets.Count(g => g.Creator is not null)} of {gets.Count} Gets nested");
        Assert.All(gets.Where(g => g.Creator is not null), get => AssertNestedIn("Request", get));
        Assert.All(gets.Where(g => g.Creator is null), get => Assert.True(get.StartTimeRelativeMSec < firstRequest, $"a Get at {get.StartTimeRelativeMSec} ms, after the first request, has no creator"));
        var puts = view.Stopped("Put");
        Assert.Contains(puts, put => put.Creator is not null);
        Assert.All(puts.Where(p => p.Creator is not null), put => AssertNestedIn("Request", put));
        Assert.All(puts.Where(p => p.Creator is null), put => Assert.True(put.StartTimeRelativeMSec < firstRequest, $"a Put at {put.StartTimeRelativeMSec} ms, after the first request, has no creator"));
        var fileReads = view.Stopped("FileRead");
        Assert.True(fileReads.Count > 100, $"{fileReads.Count} FileReads paired (half the keys are outside the cache)");
        Assert.All(fileReads, read => AssertNestedIn("Get", read));
    }

    [Fact]
    public async Task At_requests_level_a_traced_server_s_commands_pair_without_TplEventSource()
    {
        var (trace, operations) = await RecordAsync("requests", "taildb-server");
        var view = PerfViewActivities.Read(trace, _scratch);

        var commands = view.Stopped("Command");
        Assert.True(commands.Count >= operations, $"{commands.Count} Commands paired for {operations} measured requests");
        Assert.Equal(view.Starts(ServerEventContract.ProviderName, ServerEventContract.EventIds.CommandStart), commands.Count);
        Assert.Equal(0, view.Starts(TailDbEventContract.ProviderName, TailDbEventContract.EventIds.GetStart, TailDbEventContract.EventIds.PutStart));
        Assert.Equal(0, view.Starts(TplProvider));
    }

    [Fact]
    public async Task At_store_level_a_traced_server_s_store_Gets_and_Puts_nest_in_their_Commands()
    {
        var (trace, operations) = await RecordAsync("store", "taildb-server");
        var view = PerfViewActivities.Read(trace, _scratch);

        var commands = view.Stopped("Command");
        Assert.True(commands.Count >= operations, $"{commands.Count} Commands paired for {operations} measured requests");
        Assert.Equal(view.Starts(ServerEventContract.ProviderName, ServerEventContract.EventIds.CommandStart), commands.Count);
        var gets = view.Stopped("Get");
        Assert.True(gets.Count > operations / 2, $"{gets.Count} Gets paired");
        // The client fills and reads through commands too: every store call in a server is a command's.
        Assert.All(gets, get => AssertNestedIn("Command", get));
        Assert.All(view.Stopped("Put").Where(p => p.Creator is not null), put => AssertNestedIn("Command", put));
        Assert.All(view.Stopped("FileRead"), read => AssertNestedIn("Get", read));
    }

    [Fact]
    public async Task Slowest_gives_its_verdict_on_a_requests_level_trace_and_says_the_store_s_activities_are_not_in_it()
    {
        var (trace, operations) = await RecordAsync("requests", "in-process");

        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), stackReader: null);

        Assert.Equal(LoadTestEventContract.ProviderName, report.Population.Provider);
        Assert.Equal(operations, report.Population.Requests);
        Assert.False(string.IsNullOrWhiteSpace(report.Verdict));
        Assert.Contains(report.Causes, c => c.Cause.Contains("GC", StringComparison.Ordinal));
        Assert.Contains(report.Notes, n => n.StartsWith("No store events in this trace (recorded at --trace-level requests)", StringComparison.Ordinal));

        var storeRequests = Assert.Throws<AnalyzerException>(() =>
            SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.TailDb), stackReader: null));
        Assert.Equal(TailDb.Analyzer.ExitCode.NoRequests, storeRequests.ExitCode);
        Assert.Contains("record with --trace-level store", storeRequests.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Slowest_on_a_store_level_trace_does_not_claim_the_store_s_events_are_missing()
    {
        var (trace, operations) = await RecordAsync("store", "in-process");

        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), stackReader: null);

        Assert.Equal(operations, report.Population.Requests);
        Assert.DoesNotContain(report.Notes, n => n.StartsWith("No store events", StringComparison.Ordinal));
    }

    private const string TplProvider = "System.Threading.Tasks.TplEventSource";

    private static void AssertNestedIn(string parentTask, StartStopActivity child)
    {
        Assert.NotNull(child.Creator);
        Assert.StartsWith(parentTask, child.Creator!.TaskName, StringComparison.Ordinal);
        Assert.InRange(child.StartTimeRelativeMSec, child.Creator.StartTimeRelativeMSec, child.Creator.StartTimeRelativeMSec + child.Creator.DurationMSec);
        Assert.InRange(child.StartTimeRelativeMSec + child.DurationMSec, child.Creator.StartTimeRelativeMSec, child.Creator.StartTimeRelativeMSec + child.Creator.DurationMSec + 1e-3);
    }

    /// <summary>A short traced run (no CPU samples: pairing and nesting are about the events) and its measured-phase request count.</summary>
    private async Task<(string Trace, long Operations)> RecordAsync(string level, string target)
    {
        string trace = Path.Combine(_scratch.FullName, $"{level}-{target}.nettrace");
        string json = Path.Combine(_scratch.FullName, $"{level}-{target}.json");
        var run = await LoadTestProcess.RunAsync(
            ["--gc", "workstation", "--target", target, "--trace", trace, "--trace-level", level, "--sampler", "off", "--cache-fraction", "0.5", "--out", json,
                "--timeout-ms", "60000", .. LoadTestProcess.ShortRun],
            timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        Assert.Contains($"trace level: {level}", run.Stdout, StringComparison.Ordinal);
        WorkerResult result = Assert.Single(JsonSerializer.Deserialize<RunReport>(File.ReadAllText(json), WorkerResult.Json)!.Modes).Result!;
        return (trace, result.Operations);
    }

    /// <summary>PerfView's view of a trace: every Start/Stop activity StartStopActivityComputer paired, and the Start events per provider.</summary>
    private sealed class PerfViewActivities
    {
        private readonly List<StartStopActivity> _stopped = [];
        private readonly List<(string Provider, int Id)> _starts = [];

        public static PerfViewActivities Read(string trace, DirectoryInfo scratch)
        {
            var view = new PerfViewActivities();
            string etlx = TraceLog.CreateFromEventPipeDataFile(trace, Path.Combine(scratch.FullName, Path.GetFileNameWithoutExtension(trace) + ".etlx"));
            using var log = new TraceLog(etlx);
            TraceLogEventSource source = log.Events.GetSource();
            var computer = new StartStopActivityComputer(source, new ActivityComputer(source, new SymbolReader(TextWriter.Null)));
            computer.Stop += (activity, _) => view._stopped.Add(activity);
            source.AllEvents += data =>
            {
                if (data.Opcode == TraceEventOpcode.Start)
                {
                    view._starts.Add((data.ProviderName, (int)data.ID));
                }
            };
            source.Process();
            return view;
        }

        /// <summary>Paired activities whose task is <paramref name="task"/> (TraceEvent spells it "Get" or "GetStart" depending on the metadata).</summary>
        public List<StartStopActivity> Stopped(string task) =>
            _stopped.Where(a => a.TaskName == task || a.TaskName == task + "Start").ToList();

        public int Starts(string provider, params int[] ids) =>
            _starts.Count(s => s.Provider == provider && (ids.Length == 0 || ids.Contains(s.Id)));
    }
}
