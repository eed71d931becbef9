using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.LoadTest.Tests.Harness;
using Xunit.Abstractions;

namespace TailDb.LoadTest.Tests.Workloads;

/// <summary>
/// --compact-every and --upkeep: a traced run under constant eviction (cache at 10%) with a
/// compaction every half second, upkeep on requests, must show both kinds of upkeep to the analyzer
/// as causes, with exact windows from the store's own Start/Stop events.
/// </summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class UpkeepTests(ITestOutputHelper output) : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-upkeep-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public async Task CompactionAndEvictionOnRequestsAreCausesTheAnalyzerSees()
    {
        string trace = Path.Combine(_scratch.FullName, "upkeep.nettrace");
        var run = await LoadTestProcess.RunAsync(
            ["--gc", "nogc", "--trace", trace, "--sampler", "off", "--duration", "3", "--warmup", "1", "--keys", "5000", "--rate", "2000",
             "--cache-fraction", "0.1", "--compact-every", "0.5", "--upkeep", "on-request"],
            timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        Assert.Contains("compaction every 0.5 s, upkeep on requests", run.Stdout, StringComparison.Ordinal);

        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default, Scope: new ScopeSettings(PhaseChoice.All)), stackReader: null);
        output.WriteLine(report.Verdict);
        var upkeep = report.Causes.Where(c => c.Kind == CauseKind.StoreUpkeep).ToList();
        foreach (var cause in upkeep)
        {
            output.WriteLine($"{cause.Cause}: slow {cause.SlowShare:P1}, rest {cause.RestShare:P1}");
        }

        Assert.Contains(upkeep, c => c.Cause == "store compaction running (upkeep)" && c.SlowTotal + c.RestTotal > 0);
        Assert.Contains(upkeep, c => c.Cause == "store cache eviction running (upkeep)" && c.SlowTotal + c.RestTotal > 0);
    }

    [Fact]
    public async Task APacedRunSaysWhatItsCompactionsDidAndAtWhatPriority()
    {
        var run = await LoadTestProcess.RunAsync(
            ["--gc", "nogc", "--duration", "2", "--warmup", "1", "--keys", "5000", "--rate", "1000",
             "--cache-fraction", "0.1", "--compact-every", "0.5", "--compaction-rate", "8", "--compaction-priority", "low"],
            timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        output.WriteLine(run.Stdout);

        Assert.Contains("compaction every 0.5 s (8 MiB/s, priority low)", run.Stdout, StringComparison.Ordinal);
        string line = run.Stdout.Split('\n').Single(l => l.StartsWith("compactions: ", StringComparison.Ordinal));
        Assert.Contains("longest writer-lock hold", line, StringComparison.Ordinal);
        Assert.EndsWith(OperatingSystem.IsLinux() ? "priority low" : "priority normal", line.TrimEnd(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ANegativeCompactionRateIsOneLineAndExitCode2()
    {
        var run = await LoadTestProcess.RunAsync(["--compaction-rate", "-1", .. LoadTestProcess.ShortRun], timeoutSeconds: 60);
        Assert.Equal((int)ExitCode.InvalidArguments, run.ExitCode);
        Assert.Contains("--compaction-rate", run.Stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ANegativeCompactionIntervalIsOneLineAndExitCode2()
    {
        var run = await LoadTestProcess.RunAsync(["--compact-every", "-1", .. LoadTestProcess.ShortRun], timeoutSeconds: 60);
        Assert.Equal((int)ExitCode.InvalidArguments, run.ExitCode);
        Assert.Contains("--compact-every", run.Stderr, StringComparison.Ordinal);
    }
}
