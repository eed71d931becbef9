using TailDb.Benchmarks.Compare.Comparison;
using TailDb.Benchmarks.Compare.Reporting;
using static TailDb.Benchmarks.Compare.Tests.Comparison.BenchmarkComparerTests;

namespace TailDb.Benchmarks.Compare.Tests.Reporting;

public sealed class MarkdownTableTests
{
    private static readonly ComparisonOptions Defaults = new();
    private static readonly double[] Times = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109];

    [Fact]
    public void TableHasTheFiveColumnsAndOneRowPerBenchmark()
    {
        var rows = BenchmarkComparer.Compare(
            [Result("Get|Hit", Times), Result("Gone", Times)],
            [Result("Get|Hit", Times.Select(t => t * 3), allocated: 24)],
            Defaults);

        var lines = MarkdownTable.Render(rows, Defaults).Split('\n');

        Assert.Equal("| benchmark | baseline | now | ratio | verdict |", lines[0]);
        Assert.Equal(
            "| Get\\|Hit | 105 ns, 0 B | 314 ns, 24 B | 3.00x | **FAIL** slower, past 2.00x (p<0.001); **FAIL** allocates +24 B/op |",
            lines[2]);
        Assert.Equal("| Gone | 105 ns, 0 B | - |  | missing: not in this run |", lines[3]);
        Assert.StartsWith("1 compared, 1 failed, 1 slower, 0 faster, 1 allocate more, 1 missing now, 0 new", lines[5], StringComparison.Ordinal);
    }

    [Fact]
    public void UnchangedBenchmarkShowsSameWithItsPValue()
    {
        var row = BenchmarkComparer.CompareOne(Result("B", Times), Result("B", Times), Defaults);

        Assert.StartsWith("same (p=0.", MarkdownTable.Verdict(row, Defaults), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(12.345, "12.3 ns")]
    [InlineData(1234.5, "1.23 us")]
    [InlineData(123_456_789, "123 ms")]
    [InlineData(2.5e9, "2.50 s")]
    public void TimesKeepThreeSignificantDigits(double nanoseconds, string expected)
    {
        Assert.Equal(expected, Units.Time(nanoseconds));
    }
}
