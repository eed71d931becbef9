using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Tests.Results;

public sealed class BdnJsonReaderTests
{
    // The shape BenchmarkDotNet 0.14's JsonExporter.Full wrote (trimmed), including a bare NaN: the
    // committed baselines of older commits are in it.
    internal const string FullJson = """
        {
          "Title": "TailDb.Benchmarks.GetHitBenchmarks-20261122-030000",
          "Benchmarks": [
            {
              "DisplayInfo": "GetHitBenchmarks.TryGet: Quick(IterationCount=10)",
              "Namespace": "TailDb.Benchmarks.Gets",
              "Type": "GetHitBenchmarks",
              "Method": "TryGet",
              "MethodTitle": "TryGet",
              "Parameters": "Events=False&Writers=8",
              "FullName": "TailDb.Benchmarks.Gets.GetHitBenchmarks.TryGet(Events: False, Writers: 8)",
              "Statistics": { "Mean": 55.0, "StandardError": NaN },
              "Memory": { "Gen0Collections": 0, "TotalOperations": 4000, "BytesAllocatedPerOperation": 24 },
              "Measurements": [
                { "IterationMode": "Overhead", "IterationStage": "Actual", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 1000, "Nanoseconds": 1000 },
                { "IterationMode": "Workload", "IterationStage": "Warmup", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 1000, "Nanoseconds": 99000 },
                { "IterationMode": "Workload", "IterationStage": "Actual", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 1000, "Nanoseconds": 51000 },
                { "IterationMode": "Workload", "IterationStage": "Actual", "LaunchIndex": 1, "IterationIndex": 2, "Operations": 1000, "Nanoseconds": 61000 },
                { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 1000, "Nanoseconds": 50000 },
                { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "IterationIndex": 2, "Operations": 2000, "Nanoseconds": 120000 }
              ]
            },
            {
              "Type": "PutBenchmarks",
              "Method": "RawAppend",
              "Parameters": "",
              "FullName": "TailDb.Benchmarks.Puts.PutBenchmarks.RawAppend",
              "Measurements": [
                { "IterationMode": "Workload", "IterationStage": "Actual", "Operations": 4, "Nanoseconds": 400 }
              ]
            }
          ]
        }
        """;

    // BenchmarkDotNet 0.15.8's JsonExporter.Full (trimmed from a real run of the suite): Metrics
    // beside Memory, and overhead measured only while jitting.
    private const string FullJson0158 = """
        {
          "Title": "TailDb.Benchmarks.Peers.PeerBenchmarks-20261123-101820",
          "HostEnvironmentInfo": { "BenchmarkDotNetCaption": "BenchmarkDotNet", "BenchmarkDotNetVersion": "0.15.8", "ChronometerFrequency": { "Hertz": 1000000000 } },
          "Benchmarks": [
            {
              "DisplayInfo": "PeerBenchmarks.TailDbGetHit: Quick(EnvironmentVariables=TAILDB_BENCH_SCALE=quick, IterationCount=10, IterationTime=100ms, LaunchCount=1, WarmupCount=3) [Threads=1]",
              "Namespace": "TailDb.Benchmarks.Peers",
              "Type": "PeerBenchmarks",
              "Method": "TailDbGetHit",
              "MethodTitle": "TailDbGetHit",
              "Parameters": "Threads=1",
              "FullName": "TailDb.Benchmarks.Peers.PeerBenchmarks.TailDbGetHit(Threads: 1)",
              "Memory": { "Gen0Collections": 0, "Gen1Collections": 0, "Gen2Collections": 0, "TotalOperations": 360448, "BytesAllocatedPerOperation": 0 },
              "Metrics": [
                { "Value": 0, "Descriptor": { "Id": "Allocated Memory", "DisplayName": "Allocated", "NumberFormat": "0.##", "UnitType": 2, "Unit": "B", "TheGreaterTheBetter": false, "PriorityInCategory": 3 } }
              ],
              "Measurements": [
                { "IterationMode": "Overhead", "IterationStage": "Jitting", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 1, "Nanoseconds": 323321 },
                { "IterationMode": "Workload", "IterationStage": "Jitting", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 32768, "Nanoseconds": 9000000 },
                { "IterationMode": "Workload", "IterationStage": "Pilot", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 32768, "Nanoseconds": 8000000 },
                { "IterationMode": "Workload", "IterationStage": "Warmup", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 360448, "Nanoseconds": 180224000 },
                { "IterationMode": "Workload", "IterationStage": "Actual", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 360448, "Nanoseconds": 153465568 },
                { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 360448, "Nanoseconds": 108134400 },
                { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "IterationIndex": 2, "Operations": 360448, "Nanoseconds": 72089600 }
              ]
            }
          ]
        }
        """;

    [Fact]
    public void ReadsBenchmarkDotNet0158FullJsonResultStageAndAllocatedBytes()
    {
        var result = Assert.Single(BdnJsonReader.Parse(FullJson0158));

        Assert.Equal("TailDb.Benchmarks.Peers.PeerBenchmarks.TailDbGetHit(Threads: 1)", result.Id);
        Assert.Equal("PeerBenchmarks.TailDbGetHit(Threads=1)", result.DisplayName);
        Assert.Equal([300.0, 200.0], result.NanosecondsPerOperation);
        Assert.Equal(0, result.AllocatedBytesPerOperation);
    }

    [Fact]
    public void ReadsResultStageMeasurementsPerOperationAndAllocatedBytes()
    {
        var results = BdnJsonReader.Parse(FullJson);

        var tryGet = results[0];
        Assert.Equal("TailDb.Benchmarks.Gets.GetHitBenchmarks.TryGet(Events: False, Writers: 8)", tryGet.Id);
        Assert.Equal("GetHitBenchmarks.TryGet(Events=False, Writers=8)", tryGet.DisplayName);
        Assert.Equal([50.0, 60.0], tryGet.NanosecondsPerOperation);
        Assert.Equal(24, tryGet.AllocatedBytesPerOperation);
    }

    [Fact]
    public void FallsBackToActualStageWhenNoResultStageWasExported()
    {
        var raw = BdnJsonReader.Parse(FullJson)[1];

        Assert.Equal([100.0], raw.NanosecondsPerOperation);
        Assert.Null(raw.AllocatedBytesPerOperation);
        Assert.Equal("PutBenchmarks.RawAppend", raw.DisplayName);
    }

    [Fact]
    public void BriefJsonWithoutMeasurementsIsRejectedNamingTheFullExporter()
    {
        const string brief = """{ "Benchmarks": [ { "FullName": "A.B", "Statistics": { "Mean": 1 } } ] }""";
        var path = Path.Combine(Path.GetTempPath(), $"taildb-brief-{Guid.NewGuid():N}.json");
        File.WriteAllText(path, brief);
        try
        {
            var e = Assert.Throws<CompareException>(() => BdnJsonReader.ReadFile(path));
            Assert.Contains("JsonExporter.Full", e.Message, StringComparison.Ordinal);
            Assert.Contains(path, e.Message, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void EachLaunchOfACaseHasItsOwnMedianInLaunchOrder()
    {
        var result = Assert.Single(BdnJsonReader.Parse("""
            { "Benchmarks": [ { "FullName": "N.C.M", "Measurements": [
              { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "Operations": 10, "Nanoseconds": 400 },
              { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "Operations": 10, "Nanoseconds": 420 },
              { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 2, "Operations": 10, "Nanoseconds": 230 },
              { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 2, "Operations": 10, "Nanoseconds": 240 },
              { "IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 2, "Operations": 10, "Nanoseconds": 250 } ] } ] }
            """));

        Assert.Equal([41.0, 24.0], result.ProcessMedians);
        Assert.Equal(24.0, result.FastestProcessNanoseconds);
    }

    [Fact]
    public void MissingPathIsAOneLineError()
    {
        var e = Assert.Throws<CompareException>(() => BdnJsonReader.ReadAll(["/nonexistent/taildb-results"]));
        Assert.Equal("/nonexistent/taildb-results: no such file or directory", e.Message);
    }

    [Fact]
    public void DirectoryReadsEveryFullReportInside()
    {
        var dir = Directory.CreateTempSubdirectory("taildb-results-");
        try
        {
            File.WriteAllText(Path.Combine(dir.FullName, "A-report-full.json"), FullJson);
            File.WriteAllText(Path.Combine(dir.FullName, "A-report-brief.json"), "not even json");

            Assert.Equal(2, BdnJsonReader.ReadAll([dir.FullName]).Count);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }

    [Fact]
    public void BaselinesMapBesideTheReportsNamesEachBenchmarksRawBaseline()
    {
        var dir = Directory.CreateTempSubdirectory("taildb-results-");
        try
        {
            File.WriteAllText(Path.Combine(dir.FullName, "A-report-full.json"), FullJson);
            File.WriteAllText(Path.Combine(dir.FullName, "A-report-baselines.json"), """
                { "Benchmarks": [
                  { "FullName": "TailDb.Benchmarks.Gets.GetHitBenchmarks.TryGet(Events: False, Writers: 8)", "Baseline": "TailDb.Benchmarks.Puts.PutBenchmarks.RawAppend", "DriftsWith": ["TailDb.Benchmarks.Gets.GetMissBenchmarks.RawRandomAccessRead"] },
                  { "FullName": "TailDb.Benchmarks.Puts.PutBenchmarks.RawAppend", "Baseline": "TailDb.Benchmarks.Puts.PutBenchmarks.RawAppend", "AllocationNoiseBytes": 16 } ] }
                """);

            var results = BdnJsonReader.ReadAll([dir.FullName]);

            Assert.Equal("TailDb.Benchmarks.Puts.PutBenchmarks.RawAppend", results[0].BaselineId);
            Assert.False(results[0].IsBaseline);
            Assert.True(results[1].IsBaseline);
            Assert.Equal(0, results[0].AllocationNoiseBytes);
            Assert.Equal(16, results[1].AllocationNoiseBytes);
            Assert.Equal(["TailDb.Benchmarks.Gets.GetMissBenchmarks.RawRandomAccessRead"], results[0].DriftsWith);
            Assert.Empty(results[1].DriftsWith!);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }

    [Fact]
    public void NonFiniteTokensAreQuotedOnlyWhereTheyAreValues()
    {
        Assert.Equal("""{"a":"NaN","b":["-Infinity", 1],"c":"NaN text"}""",
            BdnJsonReader.QuoteNonFiniteNumbers("""{"a":NaN,"b":[-Infinity, 1],"c":"NaN text"}"""));
    }
}
