using System.Diagnostics;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;

namespace TailDb.Analyzer.Tests.Traces;

/// <summary>
/// Truncations and byte mutations of a real trace, seeded: every one must end in a report or a
/// one-line <see cref="AnalyzerException"/> (never another exception, never a hang), through
/// the whole `slowest` pipeline including the streaming stack reader.
/// </summary>
[Collection(WorkloadTracesGroup.Name)]
public sealed class DamagedTraceTests(WorkloadTraces traces)
{
    // Generous: the CI box is shared. (A metadata field count that lies no longer reaches TraceEvent,
    // which allocated what it claimed for seconds: MetadataFieldCounts refuses it first.)
    private static readonly TimeSpan s_bound = TimeSpan.FromSeconds(90);

    public static TheoryData<int> Seeds()
    {
        var data = new TheoryData<int>();
        for (var seed = 0; seed < 8; seed++)
        {
            data.Add(seed);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task TruncatedTracesEndInAReportOrOneLine(int seed)
    {
        var original = await File.ReadAllBytesAsync(traces.GroundTruth);
        var random = new Random(seed);
        var outcomes = new List<string>();
        for (var i = 0; i < 13; i++)
        {
            // Bias towards the header and the end (rundown), where structure is densest.
            var length = (i % 3) switch
            {
                0 => random.Next(0, Math.Min(4096, original.Length)),
                1 => original.Length - random.Next(1, Math.Min(65536, original.Length)),
                _ => random.Next(0, original.Length),
            };
            outcomes.Add(await AnalyseAsync(original.AsSpan(0, length).ToArray(), $"truncate-{seed}-{i}"));
        }

        Assert.Equal(13, outcomes.Count);
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task MutatedTracesEndInAReportOrOneLine(int seed)
    {
        var original = await File.ReadAllBytesAsync(traces.GroundTruth);
        var random = new Random(1000 + seed);
        var outcomes = new List<string>();
        for (var i = 0; i < 13; i++)
        {
            var bytes = (byte[])original.Clone();
            var flips = 1 + random.Next(16);
            for (var f = 0; f < flips; f++)
            {
                var at = i % 2 == 0 ? random.Next(Math.Min(bytes.Length, 8192)) : random.Next(bytes.Length);
                bytes[at] = (byte)random.Next(256);
            }

            outcomes.Add(await AnalyseAsync(bytes, $"mutate-{seed}-{i}"));
        }

        Assert.Equal(13, outcomes.Count);
    }

    [Fact]
    public async Task ZeroedBlockInTheMiddleEndsInAReportOrOneLine()
    {
        var bytes = await File.ReadAllBytesAsync(traces.GroundTruth);
        Array.Clear(bytes, bytes.Length / 2, Math.Min(65536, bytes.Length / 4));
        var outcome = await AnalyseAsync(bytes, "zeroed");
        Assert.NotEmpty(outcome);
    }

    [Fact]
    public async Task TruncatedTraceReportsTheTruncation()
    {
        var bytes = await File.ReadAllBytesAsync(traces.GroundTruth);
        var path = Path.Combine(traces.Directory, "cut-in-half.nettrace");
        await File.WriteAllBytesAsync(path, bytes.AsSpan(0, bytes.Length * 3 / 4).ToArray());
        var set = ComputerSet.Run(path, RequestSelection.TailDb);
        Assert.True(set.Facts.Truncation is not null,
            "a trace cut at three quarters must be reported as truncated");
    }

    /// <summary>Runs `slowest` on the bytes; returns "report" or the one-line message; fails on anything else.</summary>
    private async Task<string> AnalyseAsync(byte[] bytes, string name)
    {
        var path = Path.Combine(traces.Directory, name + ".nettrace");
        await File.WriteAllBytesAsync(path, bytes);
        var watch = Stopwatch.StartNew();
        var run = Task.Run(() =>
        {
            try
            {
                var report = SlowestAnalysis.Run(new SlowestSettings(path, RequestSelection.TailDb), new NetTraceStackSampleReader());
                return report.Trace.Truncation is null ? "report" : "report (truncated)";
            }
            catch (AnalyzerException e)
            {
                Assert.DoesNotContain('\n', e.Message);
                Assert.NotEqual(ExitCode.UnexpectedError, e.ExitCode);
                return e.Message;
            }
        });
        var finished = await Task.WhenAny(run, Task.Delay(s_bound));
        if (finished != run)
        {
            // Keep the input that hung, to reproduce it with the CLI.
            var kept = Path.Combine(Path.GetTempPath(), "taildb-analyzer-failures", name + ".nettrace");
            Directory.CreateDirectory(Path.GetDirectoryName(kept)!);
            File.Copy(path, kept, overwrite: true);
            Assert.Fail($"{name}: no outcome within {s_bound.TotalSeconds} s (input kept at {kept})");
        }

        var outcome = await run;
        File.Delete(path);
        Assert.True(watch.Elapsed < s_bound, $"{name} took {watch.Elapsed}");
        return outcome;
    }
}
