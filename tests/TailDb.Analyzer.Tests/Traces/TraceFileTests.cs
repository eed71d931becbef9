using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Tests.Traces;

public sealed class TraceFileTests : IDisposable
{
    private readonly DirectoryInfo _directory = Directory.CreateTempSubdirectory("taildb-tracefile-");

    public void Dispose() => _directory.Delete(recursive: true);

    [Fact]
    public void MissingFileIsABadTraceNamedInOneLine() => AssertBad(Path.Combine(_directory.FullName, "nope.nettrace"), "no such file");

    [Fact]
    public void DirectoryIsABadTrace() => AssertBad(_directory.FullName, "is a directory");

    [Fact]
    public void EmptyFileIsABadTrace() => AssertBad(Write("empty.nettrace", []), "is empty");

    [Fact]
    public void RandomBytesAreNotANetTrace() => AssertBad(Write("random.nettrace", RandomBytes(4096, 7)), "not a .nettrace");

    [Fact]
    public void EtlIsReadOnEveryOsAndRandomBytesNamedEtlAreABadTrace()
    {
        var path = Write("trace.etl", RandomBytes(4096, 1));
        Assert.Equal(TraceKind.Etl, TraceFile.Check(path));
        var e = Assert.Throws<AnalyzerException>(() => TraceFile.Open(path, TraceKind.Etl).Dispose());
        Assert.Equal(ExitCode.BadTrace, e.ExitCode);
        Assert.Contains("at byte", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', e.Message);
    }

    [Fact]
    public void EtlWhoseContentIsANetTraceIsReadAsOne()
    {
        var path = Write("saved-as.etl", [.. "Nettrace"u8, 20, 0, 0, 0]);
        Assert.Equal(TraceKind.NetTrace, TraceFile.Check(path));
    }

    [Fact]
    public void MagicAloneIsABadTraceNotACrash()
    {
        var path = Write("magic.nettrace", "Nettrace"u8.ToArray());
        var e = Assert.Throws<AnalyzerException>(() => TracePass.Run(path, []));
        Assert.Equal(ExitCode.BadTrace, e.ExitCode);
        Assert.DoesNotContain('\n', e.Message);
    }

    private static void AssertBad(string path, string expected)
    {
        var e = Assert.Throws<AnalyzerException>(() => TraceFile.Check(path));
        Assert.Equal(ExitCode.BadTrace, e.ExitCode);
        Assert.Contains(expected, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', e.Message);
    }

    private string Write(string name, byte[] bytes)
    {
        var path = Path.Combine(_directory.FullName, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    private static byte[] RandomBytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
