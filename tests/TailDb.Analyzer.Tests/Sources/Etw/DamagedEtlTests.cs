using System.IO.Compression;
using TailDb.Analyzer.Sources.Etw;
using TailDb.Analyzer.Traces;

namespace TailDb.Analyzer.Tests.Sources.Etw;

/// <summary>A real .etl cut short or overwritten ends in a report that says so, or in one line naming the offset.</summary>
public sealed class DamagedEtlTests : IDisposable
{
    private readonly DirectoryInfo _directory = Directory.CreateTempSubdirectory("taildb-etl-");

    public void Dispose() => _directory.Delete(recursive: true);

    [SharedEtlFact]
    public void AnEtlCutInsideABufferIsReadUpToTheCutAndSaysWhere()
    {
        var whole = Unzip("gcevents.etl.zip");
        var cut = Path.Combine(_directory.FullName, "cut.etl");
        File.WriteAllBytes(cut, whole[..(whole.Length - 1000)]);
        var facts = TracePass.Run(cut, []);
        Assert.NotNull(facts.Truncation);
        Assert.Contains("the file ends inside the buffer at byte", facts.Truncation, StringComparison.Ordinal);
        Assert.InRange(facts.EventCount, 1, 70);
    }

    [SharedEtlFact]
    public void AnEventSizeThatRunsPastItsBufferIsOneLineNamingTheOffset()
    {
        var bytes = Unzip("gcevents.etl.zip");

        // The second buffer's first event (0x10000 + 0x48): its 16-bit size made larger than the buffer's bytes in use.
        bytes[0x10048] = 0xF0;
        bytes[0x10049] = 0xFF;
        var path = Path.Combine(_directory.FullName, "bad.etl");
        File.WriteAllBytes(path, bytes);
        var e = Assert.Throws<AnalyzerException>(() => TracePass.Run(path, []));
        Assert.Equal(ExitCode.BadTrace, e.ExitCode);
        Assert.Contains("at byte 65,608 of the .etl", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', e.Message);
    }

    private static byte[] Unzip(string name)
    {
        using var zip = ZipFile.OpenRead(SharedEtl.Path(name));
        using var stream = zip.Entries.Single(x => x.FullName.EndsWith(".etl", StringComparison.Ordinal)).Open();
        using var memory = new MemoryStream();
        stream.CopyTo(memory);
        return memory.ToArray();
    }
}
