using System.Text.Json.Nodes;
using TailDb.LoadTest.Tests.Harness;

namespace TailDb.LoadTest.Tests.Workloads;

[Collection(WorkerProcessesGroup.Name)]
public sealed class WorkloadEndToEndTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-loadtest-workload-");

    public void Dispose() => _scratch.Delete(recursive: true);

    private async Task<JsonNode> RunAsync(params string[] args)
    {
        string outPath = Path.Combine(_scratch.FullName, "out.json");
        var result = await LoadTestProcess.RunAsync(["--gc", "workstation", "--out", outPath, .. LoadTestProcess.ShortRun, .. args]);
        Assert.True(result.ExitCode == 0, $"exit {result.ExitCode}\n{result.Stdout}\n{result.Stderr}");
        return JsonNode.Parse(File.ReadAllText(outPath))!["modes"]![0]!["result"]!;
    }

    private static long Count(JsonNode result, string kind) =>
        result["kinds"]!.AsArray().Where(k => (string?)k!["kind"] == kind).Select(k => (long)k!["corrected"]!["count"]!).SingleOrDefault();

    [Fact]
    public async Task CacheFractionSetsTheShareOfReadsThatGoToDisk()
    {
        JsonNode result = await RunAsync("--cache-fraction", "0.5", "--read-ratio", "1");

        double hits = Count(result, "get hit"), misses = Count(result, "get miss");
        Assert.InRange(misses / (hits + misses), 0.35, 0.65);
        Assert.Equal((long)result["operations"]!, (long)result["overall"]!["corrected"]!["count"]!);
    }

    [Fact]
    public async Task CopyApiAndWritesShowAsTheirOwnKinds()
    {
        JsonNode result = await RunAsync("--api", "copy", "--read-ratio", "0.5", "--delete-fraction", "0.2", "--large-every", "10", "--large-size", "100000");

        Assert.True(Count(result, "get (copy)") > 0);
        Assert.Equal(0, Count(result, "get hit"));
        Assert.True(Count(result, "put") > 3 * Count(result, "delete"));
        Assert.True(Count(result, "delete") > 0);
        // Open loop: every request has a corrected latency at least as long as its uncorrected one.
        Assert.True((long)result["overall"]!["corrected"]!["p99"]! >= (long)result["overall"]!["uncorrected"]!["p99"]!);
    }
}
