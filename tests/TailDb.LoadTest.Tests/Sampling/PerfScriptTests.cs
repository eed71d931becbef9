using System.Buffers.Binary;
using System.Diagnostics;
using System.IO.Compression;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;
using TailDb.LoadTest.Tests.Harness;
using TailDb.Tracing.Sampling;

namespace TailDb.LoadTest.Tests.Sampling;

/// <summary>
/// perf script on a real perf.data with one sample damaged, as a CI run here once met it ("failed
/// to process type: 9 [Bad address]", exit 242): real perf stops there, and the recorder keeps what
/// it wrote before, marked cut, instead of losing the whole recording.
/// </summary>
[Collection(WorkerProcessesGroup.Name)]
public sealed class PerfScriptTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("taildb-perf-script-").FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [PerfFact]
    public async Task A_sample_perf_cannot_parse_cuts_the_file_short_and_keeps_the_events_before_it()
    {
        string data = Record();
        string whole = Path.Combine(_directory, "whole.perf.gz");
        (_, string? wholeCut) = await PerfRecorder.ScriptAsync(data, whole, targetPid: 1, rateHz: 999, TimeSpan.FromSeconds(60));
        Damage(data);
        string cut = Path.Combine(_directory, "cut.perf.gz");

        (_, string? reason) = await PerfRecorder.ScriptAsync(data, cut, targetPid: 1, rateHz: 999, TimeSpan.FromSeconds(60));

        Assert.Null(wholeCut);
        Assert.False(PerfFile.ReadHeader(whole)!.Cut);
        Assert.NotNull(reason);
        Assert.True(PerfFile.ReadHeader(cut)!.Cut);
        int kept = Lines(cut), all = Lines(whole);
        Assert.InRange(kept, 2, all - 1);
    }

    [PerfFact]
    public async Task Any_other_perf_script_failure_is_an_error_and_leaves_no_file()
    {
        string output = Path.Combine(_directory, "none.perf.gz");
        File.WriteAllBytes(Path.Combine(_directory, "garbage.data"), new byte[4096]);

        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => PerfRecorder.ScriptAsync(Path.Combine(_directory, "garbage.data"), output, 1, 999, TimeSpan.FromSeconds(60)));

        Assert.StartsWith("perf script failed", e.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(output));
        Assert.Empty(Directory.GetFiles(_directory, "*.partial"));
    }

    [PerfFact]
    public async Task Slowest_names_the_requests_that_ended_after_a_cut_perf_file_does_and_none_for_a_whole_one()
    {
        string trace = Path.Combine(_directory, "run.nettrace");
        var run = await LoadTestProcess.RunAsync(["--gc", "workstation", "--trace", trace, "--sampler", "perf", "--duration", "3", "--warmup", "1", "--keys", "5000"], timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        string perfFile = PerfFile.PathBeside(trace);
        SlowestReport whole = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), StackReaders.Create(StackReaderKind.NetTrace));

        CutInHalf(perfFile);
        SlowestReport cut = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), StackReaders.Create(StackReaderKind.NetTrace));

        Assert.DoesNotContain(whole.Notes, n => n.Contains("damaged record", StringComparison.Ordinal));
        Assert.Contains(cut.Notes, n => n.Contains("ended after run.perf.gz does", StringComparison.Ordinal));
    }

    [PerfFact]
    public async Task A_trace_cut_short_beside_a_perf_file_is_walked_and_says_at_which_byte()
    {
        // With perf's samples the stack reader never reads the .nettrace, so the framing walk must
        // still run: it names the cut's byte, and it refuses corrupt framing before TraceEvent.
        string trace = Path.Combine(_directory, "cut.nettrace");
        var run = await LoadTestProcess.RunAsync(["--gc", "workstation", "--trace", trace, "--sampler", "perf", "--duration", "2", "--warmup", "1", "--keys", "5000"], timeoutSeconds: 300);
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Stdout}\n{run.Stderr}");
        byte[] whole = await File.ReadAllBytesAsync(trace);
        await File.WriteAllBytesAsync(trace, whole.AsSpan(0, whole.Length / 2).ToArray());

        SlowestReport report = SlowestAnalysis.Run(new SlowestSettings(trace, RequestSelection.Default), StackReaders.Create(StackReaderKind.NetTrace));

        Assert.Contains("by perf", report.Trace.Stacks, StringComparison.Ordinal);
        Assert.Contains($"byte {whole.Length / 2}", report.Trace.Truncation, StringComparison.Ordinal);
    }

    /// <summary>What perf script would have left had it stopped halfway: the events of the file's first half, whole, under a cut header.</summary>
    private static void CutInHalf(string perfFile)
    {
        var lines = new List<string>();
        using (var reader = PerfFile.OpenText(perfFile))
        {
            while (reader.ReadLine() is { } line)
            {
                lines.Add(line);
            }
        }

        PerfFileHeader header = PerfFile.ReadHeader(perfFile)!;
        int end = lines.Count / 2;
        while (end < lines.Count && lines[end - 1].Length != 0)
        {
            end++; // to the blank line that ends a sample's call chain
        }

        using var file = File.Create(perfFile);
        using var gzip = new GZipStream(file, CompressionLevel.Fastest);
        using var writer = new StreamWriter(gzip) { NewLine = "\n" };
        writer.Write(PerfFile.Header(header.ProcessId, header.RateHz, cut: true));
        foreach (string line in lines.Skip(1).Take(end - 1))
        {
            writer.WriteLine(line);
        }
    }

    [Theory]
    [InlineData("0x7f5e38 [0x78]: failed to process type: 9 [Bad address]", true)]
    [InlineData("Can't parse sample, err = -14", true)]
    [InlineData("incompatible file format (rerun with -v to learn more)", false)]
    public void Only_a_record_perf_could_not_parse_counts_as_damage(string stderr, bool damage) =>
        Assert.Equal(damage, PerfRecorder.DamagedRecord("warning: something else\n" + stderr) is not null);

    /// <summary>A second of the machine with call chains, as the recorder records cpu-clock, while a shell loop keeps a CPU busy.</summary>
    private string Record()
    {
        string data = Path.Combine(_directory, "perf.data");
        var start = new ProcessStartInfo(PerfRecorder.FindTool()!) { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
        foreach (string argument in (string[])["record", "--quiet", "--all-cpus", "-g", "-k", "CLOCK_MONOTONIC", "-e", "cpu-clock/freq=999/", "-o", data,
            "--", "sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
        {
            start.ArgumentList.Add(argument);
        }

        using var perf = Process.Start(start)!;
        string errors = perf.StandardError.ReadToEnd();
        Assert.True(perf.WaitForExit(60_000), "perf record did not finish in 60 s");
        Assert.True(perf.ExitCode == 0, $"perf record failed ({perf.ExitCode}): {errors}");
        return data;
    }

    /// <summary>
    /// Gives the middle sample of <paramref name="data"/> a call chain longer than its record, the
    /// parse error behind "Bad address". perf.data, only as far as this needs: a header with the
    /// attributes' and the data's sections; the first attribute's sample_type says which u64 fields
    /// come before the chain's length (perf_event.h's PERF_SAMPLE_* order).
    /// </summary>
    private static void Damage(string data)
    {
        byte[] bytes = File.ReadAllBytes(data);
        Span<byte> file = bytes;
        Assert.Equal("PERFILE2"u8.ToArray(), file[..8].ToArray());
        long attrsOffset = BinaryPrimitives.ReadInt64LittleEndian(file[24..]);
        long dataOffset = BinaryPrimitives.ReadInt64LittleEndian(file[40..]);
        long dataSize = BinaryPrimitives.ReadInt64LittleEndian(file[48..]);
        ulong sampleType = BinaryPrimitives.ReadUInt64LittleEndian(file[(int)(attrsOffset + 24)..]);
        const ulong Read = 1 << 4, Callchain = 1 << 5;
        Assert.True((sampleType & Callchain) != 0 && (sampleType & Read) == 0, $"sample_type {sampleType:x}: expected a call chain and no read values");
        ulong[] before = [1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 9, 1 << 7, 1 << 8]; // IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
        int chainAt = 8 + (8 * before.Count(bit => (sampleType & bit) != 0));

        var samples = new List<long>();
        for (long at = dataOffset; at < dataOffset + dataSize;)
        {
            uint type = BinaryPrimitives.ReadUInt32LittleEndian(file[(int)at..]);
            ushort size = BinaryPrimitives.ReadUInt16LittleEndian(file[(int)(at + 6)..]);
            if (type == 9)
            {
                samples.Add(at);
            }

            at += size;
        }

        Assert.True(samples.Count >= 10, $"only {samples.Count} samples recorded");
        BinaryPrimitives.WriteUInt64LittleEndian(file[(int)(samples[samples.Count / 2] + chainAt)..], 1UL << 40);
        File.WriteAllBytes(data, bytes);
    }

    private static int Lines(string perfFile)
    {
        using var reader = PerfFile.OpenText(perfFile);
        int lines = 0;
        while (reader.ReadLine() is not null)
        {
            lines++;
        }

        return lines;
    }
}
