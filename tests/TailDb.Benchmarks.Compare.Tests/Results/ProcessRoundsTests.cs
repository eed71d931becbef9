using TailDb.Benchmarks.Compare.Results;

namespace TailDb.Benchmarks.Compare.Tests.Results;

public sealed class ProcessRoundsTests
{
    [Theory]
    [InlineData("N.C.M(Events: False, Round: 2)", "N.C.M(Events: False)")]
    [InlineData("N.C.M(Round: 3, Events: True)", "N.C.M(Events: True)")]
    [InlineData("N.C.M(Round: 1)", "N.C.M")]
    [InlineData("C.M(Events=False, Round=12)", "C.M(Events=False)")]
    [InlineData("N.C.M(Events: False, Round: 2, Writers: 8)", "N.C.M(Events: False, Writers: 8)")]
    [InlineData("N.C.M(Surround: 2)", "N.C.M(Surround: 2)")]
    [InlineData("N.C.Round", "N.C.Round")]
    public void ANamesRoundIsRemovedAndNothingElse(string name, string expected) =>
        Assert.Equal(expected, ProcessRounds.WithoutRound(name));

    [Fact]
    public void ARowsRoundsPoolTheirMeasurementsInOrderAndKeepTheLargestAllocation()
    {
        var pooled = ProcessRounds.Pool(
        [
            new("N.C.Bare(Round: 1)", "C.Bare(Round=1)", [1.0, 2.0], 0),
            new("N.C.Store(Round: 1)", "C.Store(Round=1)", [5.0], 0),
            new("N.C.Bare(Round: 2)", "C.Bare(Round=2)", [3.0], 0),
            new("N.C.Store(Round: 2)", "C.Store(Round=2)", [6.0], 24),
            new("N.C.Store(Round: 3)", "C.Store(Round=3)", [7.0], null),
        ]);

        Assert.Equal(["N.C.Bare", "N.C.Store"], pooled.Select(r => r.Id));
        Assert.Equal(["C.Bare", "C.Store"], pooled.Select(r => r.DisplayName));
        Assert.Equal([1.0, 2.0, 3.0], pooled[0].NanosecondsPerOperation);
        Assert.Equal([1.5, 3.0], pooled[0].ProcessMedians);
        Assert.Equal(1.5, pooled[0].FastestProcessNanoseconds);
        Assert.Equal([5.0, 6.0, 7.0], pooled[1].NanosecondsPerOperation);
        Assert.Equal(0, pooled[0].AllocatedBytesPerOperation);
        Assert.Equal(24, pooled[1].AllocatedBytesPerOperation);
    }

    [Fact]
    public void ADirectorysRoundsAreReadAsOneRowWithItsBaselineUnderTheRoundlessName()
    {
        var dir = Directory.CreateTempSubdirectory("taildb-rounds-");
        try
        {
            var rows = string.Join(",", from round in new[] { 1, 2 }
                                        from method in new[] { "Bare", "Store" }
                                        select Row(method, round, method == "Bare" ? 25_000 : 27_000 + round));
            File.WriteAllText(Path.Combine(dir.FullName, "G-report-full.json"), $$"""{ "Benchmarks": [ {{rows}} ] }""");
            File.WriteAllText(Path.Combine(dir.FullName, "G-report-baselines.json"), """
                { "Benchmarks": [
                  { "FullName": "N.G.Bare(Events: False, Round: 1)", "Baseline": "N.G.Bare(Events: False, Round: 1)" },
                  { "FullName": "N.G.Store(Events: False, Round: 1)", "Baseline": "N.G.Bare(Events: False, Round: 1)" },
                  { "FullName": "N.G.Bare(Events: False, Round: 2)", "Baseline": "N.G.Bare(Events: False, Round: 2)" },
                  { "FullName": "N.G.Store(Events: False, Round: 2)", "Baseline": "N.G.Bare(Events: False, Round: 2)" } ] }
                """);

            var results = BdnJsonReader.ReadAll([dir.FullName]);

            Assert.Equal(["N.G.Bare(Events: False)", "N.G.Store(Events: False)"], results.Select(r => r.Id));
            Assert.True(results[0].IsBaseline);
            Assert.Equal("N.G.Bare(Events: False)", results[1].BaselineId);
            Assert.Equal([27.001, 27.002], results[1].NanosecondsPerOperation);
        }
        finally
        {
            dir.Delete(recursive: true);
        }
    }

    private static string Row(string method, int round, long nanoseconds) => $$"""
        { "Type": "G", "Method": "{{method}}", "Parameters": "Events=False&Round={{round}}",
          "FullName": "N.G.{{method}}(Events: False, Round: {{round}})",
          "Measurements": [ { "IterationMode": "Workload", "IterationStage": "Result", "Operations": 1000, "Nanoseconds": {{nanoseconds}} } ] }
        """;
}
