using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Reports;

namespace TailDb.Analyzer.Tests.Reports;

public class CauseRowTests
{
    private static CauseRow Row(double? lift) => new("gen0 GC pauses", "process", CauseUnit.Milliseconds, 0.5, 0.01, lift, 10, 1);

    [Fact]
    public void LiftIsShownWithOneDecimal() => Assert.Equal("7.1x", Row(7.06).LiftText);

    [Fact]
    public void LiftPastTheCeilingIsShownAsABoundNotAnArbitraryRatio() => Assert.Equal(">1000x", Row(972812.8).LiftText);

    [Fact]
    public void CauseAbsentFromTheRestIsTailOnly() => Assert.Equal("tail-only", Row(null).LiftText);
}
