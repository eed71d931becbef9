using TailDb.Analyzer.Comparison;
using TailDb.Analyzer.Tests.Recording;
using static TailDb.Analyzer.Tests.Commands.CommandLineTests;

namespace TailDb.Analyzer.Tests.Commands;

/// <summary>`compare A B` from the command line: like for like, JSON with its schema version, and bad input in one line.</summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class CompareCommandTests(WorkloadTraces traces)
{
    [Fact]
    public async Task ATraceComparedWithItselfIsFineAndEveryRatioIsOne()
    {
        var (code, stdout, stderr) = await RunAsync("compare", traces.Snapshot, traces.Snapshot, "--no-stacks");
        Assert.True(code == 0, stderr);
        var percentileRows = stdout.Split('\n').Where(l => l.StartsWith("  Get ", StringComparison.Ordinal)).ToList();
        Assert.Equal(5, percentileRows.Count);
        Assert.All(percentileRows, row => Assert.EndsWith(" 1.00x", row.TrimEnd(), StringComparison.Ordinal));
        Assert.Contains("gen2 GC pauses", stdout, StringComparison.Ordinal);
        var verdicts = stdout.Split('\n').Where(l => l.StartsWith("  A: ", StringComparison.Ordinal) || l.StartsWith("  B: ", StringComparison.Ordinal))
            .Select(l => l[5..]).ToList();
        Assert.Equal(4, verdicts.Count); // each side's file, then each side's verdict
        Assert.Equal(verdicts[2], verdicts[3]);
    }

    [Fact]
    public async Task JsonNamesTheReportAndItsSchemaVersion()
    {
        var (code, stdout, stderr) = await RunAsync("compare", traces.Snapshot, traces.GroundTruth, "--no-stacks", "--provider", "TailDb", "--activity", "Get", "--format", "json");
        Assert.True(code == 0, stderr);
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        var root = json.RootElement;
        Assert.Equal("compare", root.GetProperty("report").GetString());
        Assert.Equal(ComparisonReport.CurrentSchemaVersion, root.GetProperty("schemaVersion").GetInt32());
        Assert.Equal(traces.GroundTruth, root.GetProperty("b").GetProperty("file").GetString());
        var p99 = root.GetProperty("percentiles").EnumerateArray().Single(r => r.GetProperty("statistic").GetString() == "p99");
        // The JSON rounds a, b and the ratio separately: a ratio of the rounded values can sit across a
        // rounding boundary from the rounded ratio (5.2052 vs 5.205), so compare within 0.5%.
        double expected = p99.GetProperty("b").GetDouble() / p99.GetProperty("a").GetDouble();
        double ratio = p99.GetProperty("ratio").GetDouble();
        Assert.True(Math.Abs(ratio - expected) <= 0.005 * expected, $"ratio {ratio}, b/a {expected}");
    }

    [Theory]
    [InlineData(3, "compare", "TRACE", "/no/such/b.nettrace")]
    [InlineData(3, "compare", "/no/such/a.nettrace", "TRACE")]
    [InlineData(3, "compare", "TRACE", "ETL")]
    [InlineData(2, "compare", "TRACE")]
    [InlineData(2, "compare", "TRACE", "TRACE", "--percent", "0")]
    [InlineData(2, "compare", "TRACE", "TRACE", "--format", "pdf")]
    [InlineData(2, "compare", "TRACE", "TRACE", "--bogus")]
    [InlineData(7, "compare", "TRACE", "TRACE", "--provider", "Nobody", "--activity", "Request")]
    [InlineData(2, "compare", "TRACE", "TRACE", "--slowest-pages")]
    [InlineData(2, "compare", "TRACE", "TRACE", "--slowest-pages", "--format", "json", "-o", "/tmp/never.json")]
    public async Task BadInputEndsInOneLineAndItsExitCode(int expected, params string[] args)
    {
        var etl = Path.Combine(traces.Directory, "windows-trace.etl");
        await File.WriteAllBytesAsync(etl, [.. Enumerable.Range(0, 4096).Select(i => (byte)(i * 37))]);
        var (code, stdout, stderr) = await RunAsync([.. args.Select(a => a switch { "TRACE" => traces.Snapshot, "ETL" => etl, _ => a })]);
        Assert.Equal(expected, code);
        Assert.Empty(stdout.Trim());
        Assert.Single(stderr.Trim().Split('\n'));
        Assert.StartsWith("error: ", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SlowestPagesAreWrittenBesideTheComparisonAndLinkedFromIt()
    {
        var compare = Path.Combine(traces.Directory, "pages", "cmp.html");
        Directory.CreateDirectory(Path.GetDirectoryName(compare)!);
        var (code, _, stderr) = await RunAsync("compare", traces.Snapshot, traces.GroundTruth, "--no-stacks", "--format", "html", "-o", compare, "--slowest-pages",
            "--provider", "TailDb", "--activity", "Get");
        Assert.True(code == 0, stderr);
        var page = await File.ReadAllTextAsync(compare);
        foreach (var side in new[] { "a", "b" })
        {
            Assert.Contains($"<a href=\"cmp.{side}.html\">slowest page</a>", page, StringComparison.Ordinal);
            Assert.Contains("<h1>Slowest requests", await File.ReadAllTextAsync(Path.Combine(traces.Directory, "pages", $"cmp.{side}.html")), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task AMissingTraceIsNamedInTheOneLine()
    {
        var (code, _, stderr) = await RunAsync("compare", traces.GroundTruth, "/no/such/b.nettrace");
        Assert.Equal(3, code);
        Assert.Equal("error: /no/such/b.nettrace: no such file", stderr.Trim());
    }
}
