using System.Diagnostics;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Commands;

/// <summary>The executable's contract: exit codes, one-line errors on stderr, reports on stdout or --output.</summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class CommandLineTests(WorkloadTraces traces)
{
    [Fact]
    public async Task SlowestPrintsTheVerdictAndExitsZero()
    {
        var (code, stdout, _) = await RunAsync("slowest", traces.Snapshot, "--no-stacks", "--top", "1");
        Assert.Equal(0, code);
        Assert.Contains("VERDICT", stdout, StringComparison.Ordinal);
        Assert.Contains("gen2 GC pauses", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task JsonGoesToTheOutputFile()
    {
        var output = Path.Combine(traces.Directory, "report.json");
        var (code, _, _) = await RunAsync("slowest", traces.Snapshot, "--no-stacks", "--format", "json", "--output", output);
        Assert.Equal(0, code);
        using var json = System.Text.Json.JsonDocument.Parse(await File.ReadAllTextAsync(output));
        Assert.Equal("slowest", json.RootElement.GetProperty("report").GetString());
        Assert.Equal(SlowestReport.CurrentSchemaVersion, json.RootElement.GetProperty("schemaVersion").GetInt32());
    }

    [Fact]
    public async Task SummaryExitsZero()
    {
        var (code, stdout, _) = await RunAsync("summary", traces.Snapshot);
        Assert.Equal(0, code);
        Assert.Contains("GCs by generation", stdout, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(3, "slowest", "/no/such/trace.nettrace")]
    [InlineData(3, "summary", "/tmp")]
    [InlineData(2, "slowest", "TRACE", "--percent", "0")]
    [InlineData(2, "slowest", "TRACE", "--provider", "Microsoft.AspNetCore.Hosting")]
    [InlineData(7, "slowest", "TRACE", "--provider", "Nobody", "--activity", "Request")]
    [InlineData(2, "slowest")]
    [InlineData(2, "slowest", "TRACE", "--format", "pdf")]
    [InlineData(2, "slowest", "TRACE", "--format", "2")]
    [InlineData(2, "summary", "TRACE", "--format", "html")]
    [InlineData(2, "slowest", "TRACE", "--stack-reader", "etlx")]
    [InlineData(2, "watch", "--pid", "1")]
    [InlineData(2, "watch", "--threshold-ms", "5")]
    [InlineData(2, "watch", "--pid", "1", "--threshold-ms", "-1")]
    [InlineData(2, "watch", "--pid", "1", "--over-p99", "5", "--max-bytes", "1000")]
    [InlineData(2, "watch", "--pid", "1", "--threshold-ms", "5", "--provider", "Microsoft.AspNetCore.Hosting")]
    [InlineData(2, "watch", "--pid", "1", "--threshold-ms", "5", "--report-timeout", "0")]
    [InlineData(6, "watch", "--pid", "2147483000", "--threshold-ms", "5")]
    [InlineData(2, "watch", "--pid", "1", "--threshold-ms", "5", "--sampler", "off", "--perf-ring-mb", "8")]
    [InlineData(2, "watch", "--pid", "1", "--threshold-ms", "5", "--perf-ring-mb", "0")]
    public async Task BadInputEndsInOneLineAndItsExitCode(int expected, params string[] args)
    {
        var (code, stdout, stderr) = await RunAsync([.. args.Select(a => a == "TRACE" ? traces.Snapshot : a)]);
        Assert.Equal(expected, code);
        Assert.Empty(stdout.Trim());
        Assert.Single(stderr.Trim().Split('\n'));
        Assert.StartsWith("error: ", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FormatAndStackReaderAreChoicesInAnyCase()
    {
        var (code, stdout, _) = await RunAsync("slowest", traces.GroundTruth, "--format", "JSON", "--stack-reader", "TraceLog", "--top", "1");
        Assert.Equal(0, code);
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        Assert.Contains("TraceLogStackSampleReader", json.RootElement.GetRawText(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task EtlFileHoldingANetTraceIsAnalyzedAsOne()
    {
        var etl = Path.Combine(traces.Directory, "saved-as.etl");
        File.Copy(traces.Snapshot, etl, overwrite: true);
        var (code, stdout, _) = await RunAsync("slowest", etl, "--no-stacks", "--top", "1");
        Assert.Equal(0, code);
        Assert.Contains("VERDICT", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BareAnalyzerPrintsItsUsage()
    {
        var (code, stdout, _) = await RunAsync();
        Assert.Equal(2, code);
        Assert.Contains("Usage:", stdout, StringComparison.Ordinal);
        Assert.Contains("slowest", stdout, StringComparison.Ordinal);
        Assert.Contains("--format", (await RunAsync("slowest", "--help")).Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RecordLaunchesACommandSuspendedAndCapturesItsFirstRequest()
    {
        var trace = Path.Combine(traces.Directory, "recorded-by-cli.nettrace");
        var workload = Path.Combine(AppContext.BaseDirectory, "TailDb.Analyzer.Tests.Workload.dll");
        var (code, stdout, _) = await RunAsync("record", "--no-samples", "-o", trace, "--", "dotnet", workload, "--requests", "50", "--heap-objects", "1000");
        Assert.Equal(0, code);
        Assert.Contains("command exited with code 0", stdout, StringComparison.Ordinal);
        var report = TailDb.Analyzer.Attribution.SummaryAnalysis.Run(trace, RequestSelection.TailDb);
        var get = Assert.Single(report.Activities);
        Assert.Equal(50, get.Count);
        Assert.Equal(0, get.UnpairedStarts + get.UnpairedStops);
        // record leaves TplEventSource off when every provider is TailDb's (the store sets its own
        // ids); this workload writes through the manifest's public methods, which then carry none.
        Assert.StartsWith("thread", report.Trace.Pairing, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RecordNeedsEitherPidOrCommand()
    {
        var (code, _, stderr) = await RunAsync("record", "-o", Path.Combine(traces.Directory, "never.nettrace"));
        Assert.Equal(2, code);
        Assert.Contains("--pid", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnknownFlagIsNamed()
    {
        var (code, _, stderr) = await RunAsync("slowest", traces.Snapshot, "--bogus");
        Assert.Equal(2, code);
        Assert.Contains("--bogus", stderr, StringComparison.Ordinal);
        Assert.Single(stderr.Trim().Split('\n'));
    }

    /// <summary>The built analyzer as a child process, as a user runs it.</summary>
    internal static async Task<(int Code, string Stdout, string Stderr)> RunAsync(params string[] args)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "TailDb.Analyzer.dll"));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));
        return (process.ExitCode, await stdout, await stderr);
    }
}
