using System.Text.Json.Nodes;

namespace TailDb.LoadTest.Tests.Harness;

[Collection(WorkerProcessesGroup.Name)]
public sealed class GcModeEndToEndTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("taildb-loadtest-e2e-");

    public void Dispose() => _scratch.Delete(recursive: true);

    private async Task<JsonNode> RunToJsonAsync(string gc, IDictionary<string, string>? environment = null, params string[] extra)
    {
        string outPath = Path.Combine(_scratch.FullName, "out.json");
        var result = await LoadTestProcess.RunAsync(["--gc", gc, "--out", outPath, .. LoadTestProcess.ShortRun, .. extra], environment);
        Assert.True(result.ExitCode == 0, $"exit {result.ExitCode}\n{result.Stdout}\n{result.Stderr}");
        return JsonNode.Parse(File.ReadAllText(outPath))!;
    }

    private static JsonNode Mode(JsonNode report, string name) =>
        report["modes"]!.AsArray().Single(m => (string?)m!["mode"] == name)!["result"]!;

    [Fact]
    public async Task ServerFileRunsServerGcAndWorkstationFileWorkstationGcDespiteGcEnvironmentVariables()
    {
        // Since .NET 9 these would override the runtimeconfig, turning every mode into server non-concurrent GC.
        var hostile = new Dictionary<string, string> { ["DOTNET_gcServer"] = "1", ["DOTNET_gcConcurrent"] = "0", ["COMPlus_GCHeapCount"] = "1" };

        JsonNode report = await RunToJsonAsync("workstation,server,server-nodatas,workstation-nonconcurrent", hostile);

        JsonNode workstation = Mode(report, "workstation")["gc"]!;
        Assert.False((bool)workstation["isServerGC"]!);
        Assert.True((bool)workstation["concurrent"]!);
        JsonNode server = Mode(report, "server")["gc"]!;
        Assert.True((bool)server["isServerGC"]!);
        // With DATAS the heap count adapts; without it server GC has one heap per processor.
        Assert.InRange((int)server["heapCount"]!, 1, Environment.ProcessorCount);
        JsonNode fixedHeaps = Mode(report, "server-nodatas")["gc"]!;
        Assert.True((bool)fixedHeaps["isServerGC"]!);
        Assert.Equal(0, (int)fixedHeaps["dynamicAdaptationMode"]!);
        Assert.Equal(Environment.ProcessorCount, (int)fixedHeaps["heapCount"]!);
        Assert.False((bool)Mode(report, "workstation-nonconcurrent")["gc"]!["concurrent"]!);
    }

    [Fact]
    public async Task NogcRunsTheMeasuredPhaseWithoutAnyGc()
    {
        JsonNode result = Mode(await RunToJsonAsync("nogc"), "nogc");

        JsonNode gcs = result["gcDuringMeasurement"]!;
        Assert.Equal(0, (int)gcs["gen0"]! + (int)gcs["gen1"]! + (int)gcs["gen2"]!);
        Assert.True((long)gcs["allocatedBytes"]! > 1_000_000, "the handler's garbage was allocated, so a GC would have had cause to run");
        Assert.True((bool)result["noGcRegion"]!["activeAtEnd"]!);
        Assert.True((long)result["operations"]! > 1000);
    }

    [Fact]
    public async Task NogcWithTooSmallABudgetFailsSayingByHowMuch()
    {
        var result = await LoadTestProcess.RunAsync(["--gc", "nogc", "--nogc-budget", "4194304", .. LoadTestProcess.ShortRun]);

        Assert.Equal((int)ExitCode.NoGcRegionViolated, result.ExitCode);
        string line = result.OneErrorLine();
        Assert.Contains("GC(s) ran during the measured phase", line, StringComparison.Ordinal);
        Assert.Contains("more than the 4.0 MiB budget", line, StringComparison.Ordinal);
        Assert.Contains("nogc", result.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task GcOtherThanTheFileAskedForFailsNamingTheDifference()
    {
        // The runtime caps server GC heaps at the number of processors, so this request cannot be met.
        int heaps = Environment.ProcessorCount + 1;
        string path = Path.Combine(_scratch.FullName, "toomany.json");
        File.WriteAllText(path, $$"""
            { "runtimeOptions": { "tfm": "net10.0", "framework": { "name": "Microsoft.NETCore.App", "version": "10.0.0" }, "rollForward": "LatestMinor",
              "configProperties": { "System.GC.Server": true, "System.GC.HeapCount": {{heaps}}, "System.GC.DynamicAdaptationMode": 0 } } }
            """);

        var result = await LoadTestProcess.RunAsync(["--gc", path, .. LoadTestProcess.ShortRun]);

        Assert.Equal((int)ExitCode.GcMismatch, result.ExitCode);
        Assert.Contains($"asked for {heaps} heaps, got {Environment.ProcessorCount}", result.OneErrorLine(), StringComparison.Ordinal);
    }
}
