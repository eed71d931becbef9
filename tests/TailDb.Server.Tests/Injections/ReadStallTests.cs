using TailDb.Server.Injections;

namespace TailDb.Server.Tests.Injections;

public sealed class ReadStallTests
{
    [Theory]
    [InlineData("read-stall:every=2s,ms=40", 2000, 40)]
    [InlineData("read-stall:every=500ms,ms=40", 500, 40)]
    [InlineData("read-stall:every=1,ms=0.5s", 1000, 500)]
    [InlineData("read-stall", 2000, 40)]
    public void A_read_stall_is_parsed_with_its_units(string text, double every, double ms)
    {
        ReadStall? stall = ReadStall.Parse(text, out string? problem);

        Assert.Null(problem);
        Assert.Equal(every, stall!.EveryMilliseconds);
        Assert.Equal(ms, stall.Milliseconds);
        // What the load test passes on is read back the same.
        ReadStall? again = ReadStall.Parse(stall.Spelled, out string? respelled);
        Assert.Null(respelled);
        Assert.Equal((every, ms), (again!.EveryMilliseconds, again.Milliseconds));
    }

    [Theory]
    [InlineData("gc:every=2s", "unknown cause 'gc'")]
    [InlineData("read-stall:every=2s,hold=40", "read-stall takes every and ms, not 'hold'")]
    [InlineData("read-stall:every=-1s", "every must be a positive duration")]
    [InlineData("read-stall:every=40ms,ms=40", "would never end")]
    [InlineData("read-stall:every", "'every' in 'read-stall:every' is not a single name=value")]
    public void A_bad_read_stall_is_one_line_naming_what_is_wrong(string text, string expected)
    {
        Assert.Null(ReadStall.Parse(text, out string? problem));
        Assert.Contains(expected, problem, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', problem!);
    }

    [Fact]
    public void A_read_inside_a_window_waits_for_the_rest_of_it_and_one_outside_does_not()
    {
        var stall = new ReadStall(EveryMilliseconds: 1000, Milliseconds: 40);

        Assert.Equal(40, stall.WaitAfter(0).TotalMilliseconds, precision: 6);
        Assert.Equal(30, stall.WaitAfter(2010).TotalMilliseconds, precision: 6);
        Assert.Equal(TimeSpan.Zero, stall.WaitAfter(2040));
        Assert.Equal(TimeSpan.Zero, stall.WaitAfter(2999));
    }
}
