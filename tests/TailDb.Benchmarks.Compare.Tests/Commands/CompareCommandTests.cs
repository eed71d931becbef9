using TailDb.Benchmarks.Compare.Commands;
using TailDb.Benchmarks.Compare.Comparison;
using TailDb.Benchmarks.Compare.Tests.Results;

namespace TailDb.Benchmarks.Compare.Tests.Commands;

public sealed class CompareCommandTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("taildb-compare-");

    public void Dispose() => _dir.Delete(recursive: true);

    private string Write(string name, string json)
    {
        var path = Path.Combine(_dir.FullName, name);
        File.WriteAllText(path, json);
        return path;
    }

    private static (ExitCode Code, string Output, string Error) Run(string baseline, string current)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var code = CompareCommand.Run(new CompareArguments([baseline], [current], new ComparisonOptions(), null), output, error);
        return (code, output.ToString(), error.ToString());
    }

    [Fact]
    public void SameResultsPrintTheTableAndSucceed()
    {
        var path = Write("a-report-full.json", BdnJsonReaderTests.FullJson);

        var (code, output, error) = Run(path, path);

        Assert.Equal(ExitCode.Success, code);
        Assert.Contains("| GetHitBenchmarks.TryGet(Events=False, Writers=8) | 55.0 ns, 24 B | 55.0 ns, 24 B | 1.00x |", output, StringComparison.Ordinal);
        Assert.Empty(error);
    }

    [Fact]
    public void MoreAllocatedBytesExitWithRegression()
    {
        var baseline = Write("base-report-full.json", BdnJsonReaderTests.FullJson);
        var current = Write("now-report-full.json", BdnJsonReaderTests.FullJson.Replace("\"BytesAllocatedPerOperation\": 24", "\"BytesAllocatedPerOperation\": 25", StringComparison.Ordinal));

        var (code, output, _) = Run(baseline, current);

        Assert.Equal(ExitCode.Regression, code);
        Assert.Contains("**FAIL** allocates +1 B/op", output, StringComparison.Ordinal);
    }

    [Fact]
    public void MissingBaselineIsOneLineAndBadInput()
    {
        var current = Write("now-report-full.json", BdnJsonReaderTests.FullJson);

        var (code, output, error) = Run(Path.Combine(_dir.FullName, "nope"), current);

        Assert.Equal(ExitCode.BadInput, code);
        Assert.Empty(output);
        Assert.Equal($"error: {Path.Combine(_dir.FullName, "nope")}: no such file or directory", error.TrimEnd());
    }

    [Fact]
    public void ParsedFlagsReachTheComparison()
    {
        var path = Write("a-report-full.json", BdnJsonReaderTests.FullJson);

        var code = CompareCommand.Create().Parse(["--baseline", path, "--current", path, "--alpha", "2"]).Invoke();

        Assert.Equal((int)ExitCode.BadInput, code);
    }
}
