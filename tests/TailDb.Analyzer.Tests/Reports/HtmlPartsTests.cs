using System.Text.RegularExpressions;
using TailDb.Analyzer.Reports;

namespace TailDb.Analyzer.Tests.Reports;

/// <summary>Whatever a page shows cut or shortened carries its whole text, one click away (a details element) and on hover.</summary>
public sealed partial class HtmlPartsTests
{
    private const string LongCause = "sample profiler suspensions (SuspendOther while sampling: measurement overhead)";

    [Fact]
    public void ALongNameIsCutWithItsWholeTextInsideAnExpandableCell()
    {
        var html = HtmlParts.Named(LongCause, 20);

        Assert.StartsWith("<details class=\"cut name\">", html, StringComparison.Ordinal);
        Assert.Contains("<span class=\"short\">sample profiler sus…</span>", html, StringComparison.Ordinal);
        Assert.Contains($"<span class=\"full\">{LongCause}</span>", html, StringComparison.Ordinal);
        Assert.Contains($"title=\"{LongCause}\"", html, StringComparison.Ordinal);
    }

    [Fact]
    public void AShortNameIsShownWholeWithNothingToExpand()
    {
        Assert.Equal("gen1 GC pauses", HtmlParts.Named("gen1 GC pauses"));
        Assert.Equal("a.nettrace", HtmlParts.FileName("a.nettrace"));
    }

    [Fact]
    public void AShortenedFrameAndAPathShownByItsFileNameExpandToTheWhole()
    {
        const string frame = "TailDb.Server.Hosting.RespConnection+Batch`1[System.Byte].RunBatch(System.IO.Pipelines.PipeReader, int32)";
        Assert.Equal(frame, Full().Match(HtmlParts.Frame(frame)).Groups[1].Value);
        Assert.Equal("/tmp/report/workstation.nettrace", Full().Match(HtmlParts.FileName("/tmp/report/workstation.nettrace")).Groups[1].Value);
        Assert.DoesNotContain("<details", HtmlParts.Frame("Short.Frame()"), StringComparison.Ordinal);
    }

    [GeneratedRegex("<span class=\"full\">([^<]*)</span>")]
    private static partial Regex Full();
}
