using TailDb.Analyzer.Tests.Commands;

namespace TailDb.Analyzer.Tests.Sources.Etw;

/// <summary>The analyzer's commands on a real machine-wide PerfView trace, as a user runs them.</summary>
public sealed class EtwAnalysisTests
{
    private static string X64 => SharedEtl.Path("net.4.5.2.x64.etl.zip");

    [SharedEtlFact]
    public async Task SummaryOfAMachineWideTraceAnalyzesTheProcessWithTheMostGcsAndNamesIt()
    {
        var (code, stdout, stderr) = await CommandLineTests.RunAsync("summary", X64);
        Assert.True(code == 0, stderr);
        Assert.Contains("Analyzed process 3676 (Test.x64), the one with the most GCs", stdout, StringComparison.Ordinal);

        // Only that process's GCs: 263 pauses (PerfView's own process paused once more).
        Assert.Contains("pauses: 263;", stdout, StringComparison.Ordinal);

        // And its kernel CPU samples, at PerfView's 1 ms profile interval.
        Assert.Contains("sampling interval: 1.000 ms (measured)", stdout, StringComparison.Ordinal);
        Assert.Contains("kernel CPU samples of the process", stdout, StringComparison.Ordinal);
    }

    [SharedEtlFact]
    public async Task PidChoosesAnotherProcessAndAnUnknownPidIsOneLine()
    {
        var (code, stdout, stderr) = await CommandLineTests.RunAsync("summary", X64, "--pid", "3988");
        Assert.True(code == 0, stderr);
        Assert.Contains("Analyzed process 3988 (PerfView), chosen by --pid", stdout, StringComparison.Ordinal);
        Assert.Contains("pauses: 1;", stdout, StringComparison.Ordinal);

        (code, _, stderr) = await CommandLineTests.RunAsync("summary", X64, "--pid", "1");
        Assert.Equal(2, code);
        Assert.Single(stderr.Trim().Split('\n'));
        Assert.Contains("--pid 1", stderr, StringComparison.Ordinal);
    }

    [SharedEtlFact]
    public async Task SlowestWithoutRequestActivitySaysSoInOneLineNamingTheStartStopActivitiesItHas()
    {
        var (code, stdout, stderr) = await CommandLineTests.RunAsync("slowest", X64);
        Assert.Equal(7, code);
        Assert.Empty(stdout.Trim());
        Assert.Single(stderr.Trim().Split('\n'));
        Assert.Contains("PerfView/Tracing", stderr, StringComparison.Ordinal);
        Assert.Contains("System.Threading.Tasks.TplEventSource/TaskExecute", stderr, StringComparison.Ordinal);
    }
}
