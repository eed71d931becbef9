using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>The public pipeline the load test's --report calls: each mode's slowest page, and one page comparing them that links each.</summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class ModeReportsTests(WorkloadTraces traces) : IDisposable
{
    private readonly DirectoryInfo _output = Directory.CreateTempSubdirectory("taildb-mode-reports-");

    public void Dispose() => _output.Delete(recursive: true);

    [Fact]
    public void EveryAnalyzableModeGetsItsPageAndTheComparisonLinksEachAndNamesTheOthersProblem()
    {
        var missing = Path.Combine(_output.FullName, "never-recorded.nettrace");

        var pages = ModeReports.Write(
            [new("workstation", traces.GroundTruth), new("crashed", null), new("server", traces.Snapshot), new("unreadable", missing)],
            _output.FullName);

        Assert.Equal(Path.Combine(_output.FullName, "index.html"), pages.ComparisonPage);
        Assert.Equal(["workstation", "crashed", "server", "unreadable"], pages.Modes.Select(m => m.Label));
        Assert.Equal([Path.Combine(_output.FullName, "workstation.html"), null, Path.Combine(_output.FullName, "server.html"), null], pages.Modes.Select(m => m.Page));
        Assert.Equal("the run left no trace", pages.Modes[1].Problem);
        Assert.Contains("never-recorded.nettrace", pages.Modes[3].Problem, StringComparison.Ordinal);
        Assert.Equal(["index.html", "server.html", "workstation.html"], Directory.GetFiles(_output.FullName).Select(Path.GetFileName).Order(StringComparer.Ordinal));

        var index = File.ReadAllText(pages.ComparisonPage);
        Assert.Contains("<a href=\"workstation.html\">slowest page</a>", index, StringComparison.Ordinal);
        Assert.Contains("<a href=\"server.html\">slowest page</a>", index, StringComparison.Ordinal);
        Assert.Contains("crashed has no analysis: the run left no trace", index, StringComparison.Ordinal);
        Assert.Contains("id=\"timeline-m0\"", index, StringComparison.Ordinal);
        Assert.Contains("id=\"timeline-m2\"", index, StringComparison.Ordinal);
        Assert.DoesNotContain("id=\"timeline-m1\"", index, StringComparison.Ordinal);
        Assert.DoesNotContain("<script src", index, StringComparison.Ordinal); // self-contained
        Assert.Contains("<canvas id=\"timeline\"", File.ReadAllText(Path.Combine(_output.FullName, "server.html")), StringComparison.Ordinal);
    }

    [Fact]
    public void TheComparisonShowsEachModesVerdictAndItsP99RatioToTheFirstMode()
    {
        var pages = ModeReports.Write([new("workstation", traces.GroundTruth), new("server", traces.Snapshot)], _output.FullName);
        // The pages' own analysis: slowest's defaults, stacks read.
        var a = SlowestAnalysis.Run(new SlowestSettings(traces.GroundTruth, RequestSelection.Default), new NetTraceStackSampleReader());
        var b = SlowestAnalysis.Run(new SlowestSettings(traces.Snapshot, RequestSelection.Default), new NetTraceStackSampleReader());

        var index = File.ReadAllText(pages.ComparisonPage);
        Assert.Contains(System.Net.WebUtility.HtmlEncode(a.Verdict), index, StringComparison.Ordinal);
        Assert.Contains(System.Net.WebUtility.HtmlEncode(b.Verdict), index, StringComparison.Ordinal);
        var (getA, getB) = (a.Population.Activities.Single(s => s.Name == "Get"), b.Population.Activities.Single(s => s.Name == "Get"));
        var ratio = Compared.Ratio(ComparisonBuilder.Ratio(getA.P99Ms, getB.P99Ms));
        Assert.Contains($"{Compared.Ms(getB.P99Ms)} <span class=\"ratio\">{ratio}</span>", index, StringComparison.Ordinal);
        Assert.Contains($"{Compared.Ms(getA.P99Ms)} <span class=\"ratio base\">1.00x</span>", index, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("server-nodatas", "server-nodatas.html")]
    [InlineData("workstation run 2", "workstation-run-2.html")]
    [InlineData("a/b", "a-b.html")]
    [InlineData("index", "mode-index.html")]
    [InlineData("", "mode.html")]
    public void AnyLabelBecomesAFileNameThatIsNotTheComparisonsOwn(string label, string fileName) =>
        Assert.Equal(fileName, ModeReports.FileNameFor(label));

    [Fact]
    public void TwoLabelsThatSpellAlikeAsFileNamesGetTwoPages()
    {
        var pages = ModeReports.Write([new("a/b", traces.Snapshot), new("a b", traces.Snapshot)], _output.FullName);

        Assert.Equal(["a-b.html", "a-b-2.html"], pages.Modes.Select(m => Path.GetFileName(m.Page)));
    }
}
