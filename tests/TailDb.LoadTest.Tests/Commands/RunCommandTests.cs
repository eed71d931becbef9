using TailDb.LoadTest.Commands;
using TailDb.LoadTest.Harness;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Tests.Commands;

public class RunCommandTests
{
    private static HarnessOptions Bind(params string[] args)
    {
        var parsed = RunCommand.Create().Parse(args);
        Assert.Empty(parsed.Errors);
        return RunCommand.Bind(parsed);
    }

    private static LoadTestException BindFails(params string[] args) =>
        Assert.Throws<LoadTestException>(() => Bind(args));

    [Fact]
    public void DefaultsAreAnOpenLoopUnderWorkstationGc()
    {
        HarnessOptions options = Bind();

        Assert.Equal("workstation", options.Gc);
        Assert.Equal(new WorkloadOptions(), options.Workload);
        Assert.NotNull(options.Workload.Rate);
        Assert.Null(options.Sampler);
        Assert.False(options.EventStacks);
        Assert.Null(options.TracePath);
    }

    [Fact]
    public void EveryWorkloadFlagIsBound()
    {
        HarnessOptions options = Bind(
            "--gc", "all", "--rate", "max", "--duration", "2.5", "--warmup", "0", "--keys", "500", "--value-size", "100",
            "--large-every", "20", "--large-size", "70000", "--read-ratio", "0.5", "--delete-fraction", "0.2",
            "--distribution", "zipf", "--zipf-theta", "0.8", "--cache-fraction", "0.25", "--threads", "3", "--api", "copy",
            "--app-alloc", "0", "--durability", "fsync", "--seed", "9", "--nogc-budget", "1000000", "--sampler", "off", "--event-stacks", "on",
            "--trace", "x.nettrace", "--out", "r.json");

        Assert.Equal(
            new WorkloadOptions
            {
                Rate = null, DurationSeconds = 2.5, WarmupSeconds = 0, Keys = 500, ValueSize = 100, LargeEvery = 20, LargeSize = 70000,
                ReadRatio = 0.5, DeleteFraction = 0.2, Distribution = KeyDistribution.Zipf, ZipfTheta = 0.8, CacheFraction = 0.25,
                Threads = 3, Api = ReadApi.Copy, AppAllocBytes = 0, Durability = Durability.Fsync, Seed = 9, NoGcBudgetBytes = 1_000_000,
            },
            options.Workload);
        Assert.Equal("all", options.Gc);
        Assert.Equal(TailDb.Tracing.Sampling.SamplerKind.Off, options.Sampler);
        Assert.True(options.EventStacks);
        Assert.Equal("x.nettrace", options.TracePath);
        Assert.Equal("r.json", options.OutPath);
    }

    [Fact]
    public void WithoutReportNoPagesAreWritten()
    {
        Assert.Null(Bind().ReportDirectory);
        Assert.Null(Bind("--trace", "x.nettrace").ReportDirectory);
    }

    [Fact]
    public void ReportAloneRecordsEveryModesTraceIntoItsDirectory()
    {
        string directory = Path.Combine(Path.GetTempPath(), "taildb-report-bind");

        HarnessOptions options = Bind("--gc", "all", "--report", directory);

        Assert.Equal(Path.GetFullPath(directory), options.ReportDirectory!.FullName);
        Assert.Equal(Path.Combine(Path.GetFullPath(directory), HarnessOptions.ReportTraceName), options.TracePath);
        Assert.Equal(
            Path.Combine(Path.GetFullPath(directory), "loadtest.server.nettrace"),
            HarnessOptions.TracePathFor(options.TracePath!, "server", modeCount: 5));
    }

    [Fact]
    public void ReportWithTraceKeepsTheTracesWhereTraceSays()
    {
        HarnessOptions options = Bind("--gc", "workstation,server", "--trace", "elsewhere/t.nettrace", "--report", "pages");

        Assert.Equal("elsewhere/t.nettrace", options.TracePath);
        Assert.Equal(Path.GetFullPath("pages"), options.ReportDirectory!.FullName);
    }

    [Fact]
    public void ReportWithoutADirectoryIsAParseError()
    {
        var parsed = RunCommand.Create().Parse(["--report"]);

        Assert.NotEmpty(parsed.Errors);
    }

    [Theory]
    [InlineData("--rate", "0", "--rate")]
    [InlineData("--rate", "-5", "--rate")]
    [InlineData("--rate", "fast", "--rate")]
    [InlineData("--duration", "0", "--duration")]
    [InlineData("--warmup", "-1", "--warmup")]
    [InlineData("--keys", "0", "--keys")]
    [InlineData("--read-ratio", "1.5", "--read-ratio")]
    [InlineData("--zipf-theta", "1", "--zipf-theta")]
    [InlineData("--threads", "0", "--threads")]
    [InlineData("--nogc-budget", "0", "--nogc-budget")]
    public void InvalidValueIsRejectedNamingItsFlag(string flag, string value, string named)
    {
        LoadTestException error = BindFails(flag, value);

        Assert.Equal(ExitCode.InvalidArguments, error.ExitCode);
        Assert.StartsWith(named + " ", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', error.Message);
    }

    [Theory]
    [InlineData("--api", "mmap")]
    [InlineData("--durability", "sometimes")]
    [InlineData("--distribution", "pareto")]
    [InlineData("--sampler", "maybe")]
    [InlineData("--event-stacks", "some")]
    [InlineData("--sampler", "1")]
    public void ValueOutsideItsChoicesIsAParseErrorNamingTheFlagAndTheChoices(string flag, string value)
    {
        var parsed = RunCommand.Create().Parse([flag, value]);

        var error = Assert.Single(parsed.Errors);
        Assert.StartsWith($"{flag} must be one of ", error.Message, StringComparison.Ordinal);
        Assert.EndsWith($"(got '{value}')", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void MalformedNumberIsAParseErrorNamingTheFlag()
    {
        var parsed = RunCommand.Create().Parse(["--duration", "soon"]);

        Assert.Contains(parsed.Errors, e => e.Message.Contains("--duration", StringComparison.Ordinal));
    }

    [Fact]
    public void TracePathGetsTheModeAsSuffixOnlyWhenSeveralModesRun()
    {
        Assert.Equal(Path.GetFullPath("out/t.nettrace"), HarnessOptions.TracePathFor("out/t.nettrace", "server", 1));
        Assert.Equal(Path.GetFullPath("out/t.server.nettrace"), HarnessOptions.TracePathFor("out/t.nettrace", "server", 5));
        Assert.Equal(Path.GetFullPath("out/t.nogc.nettrace"), HarnessOptions.TracePathFor("out/t", "nogc", 2));
    }
}
