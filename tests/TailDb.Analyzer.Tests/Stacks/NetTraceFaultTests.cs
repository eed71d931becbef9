using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>Damaged input ends in samples or one TraceFormatException, quickly; never a hang or a crash.</summary>
[Collection(RecordedTracesGroup.Name)]
public sealed class NetTraceFaultTests(RecordedTraces traces)
{
    private static readonly TimeSpan PerReadLimit = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task TraceCutInsideItsLastBlockIsReportedAsTruncated()
    {
        var bytes = await File.ReadAllBytesAsync(traces.Complete);
        // The last two bytes are the last block's EndObject tag and the stream's NullReference tag.
        var path = Write("cut-inside.nettrace", bytes.AsSpan(0, bytes.Length - 2));

        var error = await Assert.ThrowsAsync<TraceFormatException>(() => ReadAsync(path));

        Assert.Equal(TraceFormatProblem.Truncated, error.Problem);
        Assert.Contains("truncated", error.Message, StringComparison.Ordinal);
        Assert.Contains(path, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', error.Message);
    }

    [Fact]
    public async Task TraceMissingOnlyItsEndMarkerKeepsEverySample()
    {
        var bytes = await File.ReadAllBytesAsync(traces.Complete);
        var path = Write("no-end-marker.nettrace", bytes.AsSpan(0, bytes.Length - 1));

        var cut = await ReadAsync(path);

        Assert.Equal(new NetTraceStackSampleReader().Read(traces.Complete).Samples, cut.Samples);
    }

    [Fact]
    public async Task EveryCutEndsInSamplesOrATruncationError()
    {
        var bytes = await File.ReadAllBytesAsync(traces.Complete);
        var truncations = 0;
        for (var i = 1; i <= 60; i++)
        {
            var length = (int)((long)bytes.Length * i / 61);
            var path = Write($"cut-{i}.nettrace", bytes.AsSpan(0, length));
            try
            {
                await ReadAsync(path);
            }
            catch (TraceFormatException e)
            {
                Assert.Equal(TraceFormatProblem.Truncated, e.Problem);
                truncations++;
            }
        }

        // A cut lands exactly between two objects only by luck; nearly all land inside one.
        Assert.True(truncations >= 55, $"{truncations} of 60 cuts reported as truncated");
    }

    [Fact]
    public async Task ByteMutationsEndInSamplesOrOneLineFormatError()
    {
        var original = await File.ReadAllBytesAsync(traces.Complete);
        var random = new Random(4);
        for (var i = 0; i < 150; i++)
        {
            var bytes = (byte[])original.Clone();
            for (var flips = random.Next(1, 4); flips > 0; flips--)
            {
                bytes[random.Next(bytes.Length)] = (byte)random.Next(256);
            }

            var path = Write("mutated.nettrace", bytes);
            try
            {
                await ReadAsync(path);
            }
            catch (TraceFormatException e)
            {
                Assert.DoesNotContain('\n', e.Message);
                Assert.NotEqual(TraceFormatProblem.NewerFormat, e.Problem);
            }
        }
    }

    [Theory]
    [InlineData("", TraceFormatProblem.Truncated)]
    [InlineData("hello, this is not a trace", TraceFormatProblem.NotNetTrace)]
    [InlineData("Nettrace", TraceFormatProblem.Truncated)]
    public async Task FileThatIsNotANetTraceIsRejected(string content, TraceFormatProblem expected)
    {
        var path = Write("not-a-trace.nettrace", System.Text.Encoding.ASCII.GetBytes(content));

        var error = await Assert.ThrowsAsync<TraceFormatException>(() => ReadAsync(path));

        Assert.StartsWith(path + ": ", error.Message, StringComparison.Ordinal);
        Assert.Equal(expected, error.Problem);
    }

    [Fact]
    public async Task Version6TraceIsRejectedSayingWhichVersion()
    {
        // V6 (NetTraceFormat.md) follows the magic with a major and minor version instead of the
        // FastSerialization header; .NET 10 writes V5.
        var path = Write("v6.nettrace", [.. "Nettrace"u8, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

        var error = await Assert.ThrowsAsync<TraceFormatException>(() => ReadAsync(path));

        Assert.Equal(TraceFormatProblem.NewerFormat, error.Problem);
        Assert.Contains("version 6", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task MissingFileIsAFormatErrorNamingTheFile()
    {
        var path = Path.Combine(traces.Directory, "does-not-exist.nettrace");

        var error = await Assert.ThrowsAsync<TraceFormatException>(() => ReadAsync(path));

        Assert.Contains(path, error.Message, StringComparison.Ordinal);
        Assert.Equal(TraceFormatProblem.Unreadable, error.Problem);
    }

    private static async Task<StackSampleSet> ReadAsync(string path) =>
        await Task.Run(() => new NetTraceStackSampleReader().Read(path)).WaitAsync(PerReadLimit);

    private string Write(string name, ReadOnlySpan<byte> bytes)
    {
        var path = Path.Combine(traces.Directory, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }
}
