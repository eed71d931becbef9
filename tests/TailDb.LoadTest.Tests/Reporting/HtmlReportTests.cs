using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Reporting;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Tests.Harness;

namespace TailDb.LoadTest.Tests.Reporting;

[Collection(WorkerProcessesGroup.Name)]
public sealed class HtmlReportTests : IDisposable
{
    private static readonly GcMode s_workstation = new("workstation", "workstation.json", new GcExpectation(false, true, null, null, false));

    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-loadtest-report-");

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public void ALabelIsTheModeNamingTheTargetOnlyAmongSeveralAndTheRunOnlyWithRepeat()
    {
        var report = new ModeReport(s_workstation, null, null, [], Run: 2) { Target = TargetAddress.TailDbServer };

        Assert.Equal("workstation", HtmlReport.Label(report, runs: 1, targets: 1));
        Assert.Equal("workstation taildb-server", HtmlReport.Label(report, runs: 1, targets: 2));
        Assert.Equal("workstation run 2", HtmlReport.Label(report, runs: 3, targets: 1));
    }

    [Fact]
    public void PrepareCreatesTheDirectoryAndLeavesNothingInIt()
    {
        var directory = new DirectoryInfo(Path.Combine(_scratch.FullName, "a", "b"));

        HtmlReport.Prepare(directory);

        Assert.True(Directory.Exists(directory.FullName));
        Assert.Empty(Directory.GetFileSystemEntries(directory.FullName));
    }

    [Fact]
    public void PrepareOnAFileIsAnOutputFailureNamingTheFlag()
    {
        string file = Path.Combine(_scratch.FullName, "file");
        File.WriteAllText(file, "");

        var e = Assert.Throws<LoadTestException>(() => HtmlReport.Prepare(new DirectoryInfo(file)));

        Assert.Equal(ExitCode.OutputFailed, e.ExitCode);
        Assert.StartsWith("--report: cannot write", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TwoModesWithReportWriteEachModesPageAndOneComparisonLinkingBoth()
    {
        string directory = Path.Combine(_scratch.FullName, "pages");

        var result = await LoadTestProcess.RunAsync(["--gc", "workstation,server", "--report", directory, "--sampler", "off", .. LoadTestProcess.ShortRun], timeoutSeconds: 240);

        Assert.True(result.ExitCode == 0, $"exit {result.ExitCode}\n{result.Stdout}\n{result.Stderr}");
        foreach (string file in new[] { "loadtest.workstation.nettrace", "loadtest.server.nettrace", "workstation.html", "server.html", "index.html" })
        {
            Assert.True(File.Exists(Path.Combine(directory, file)), $"{file} missing from {directory}:\n{result.Stdout}");
        }

        Assert.Contains($"report: {Path.Combine(directory, "index.html")}", result.Stdout, StringComparison.Ordinal);
        string index = File.ReadAllText(Path.Combine(directory, "index.html"));
        Assert.Contains("<a href=\"workstation.html\">", index, StringComparison.Ordinal);
        Assert.Contains("<a href=\"server.html\">", index, StringComparison.Ordinal);
        Assert.Contains("its ratio to workstation's", index, StringComparison.Ordinal);
        Assert.Contains("id=\"timeline-m1\"", index, StringComparison.Ordinal);
        Assert.Contains("Slowest requests", File.ReadAllText(Path.Combine(directory, "server.html")), StringComparison.Ordinal);
    }
}
