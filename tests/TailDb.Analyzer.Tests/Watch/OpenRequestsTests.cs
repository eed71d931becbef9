using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Watch;

public sealed class OpenRequestsTests
{
    private static readonly ActivityKey A = ActivityKey.Of(1, 10, 0);
    private static readonly ActivityKey B = ActivityKey.Of(2, 10, 0);
    private static readonly ActivityKey Thread7 = ActivityKey.Of(0, 0, 7);

    [Fact]
    public void AStopTakesTheStartJustBeforeIt()
    {
        var open = new OpenRequests();
        open.Start(A, 100, 1);

        Assert.True(open.TryStop(A, out var start, out var activity));
        Assert.Equal((100L, 1), (start, activity));
        Assert.Equal(0, open.Count);
        Assert.False(open.TryStop(A, out _, out _));
    }

    [Fact]
    public void InterleavedRequestsEachFindTheirOwnStart()
    {
        var open = new OpenRequests();
        open.Start(A, 100, 1);
        open.Start(B, 150, 2);
        open.Start(Thread7, 160, 0);

        Assert.True(open.TryStop(A, out var startA, out var activityA));
        Assert.True(open.TryStop(Thread7, out var start7, out _));
        Assert.True(open.TryStop(B, out var startB, out var activityB));
        Assert.Equal((100L, 1, 150L, 2, 160L), (startA, activityA, startB, activityB, start7));
        Assert.Equal(0, open.Count);
    }

    [Fact]
    public void AThreadsNewStartReplacesItsOlderOpenOneWhoseStopWasLost()
    {
        var open = new OpenRequests();
        open.Start(Thread7, 100, 0);   // its Stop never comes
        open.Start(A, 120, 1);         // pushes thread 7's open Start out of the slot
        open.Start(Thread7, 200, 0);

        Assert.True(open.TryStop(Thread7, out var start, out _));
        Assert.Equal(200, start);
        Assert.False(open.TryStop(Thread7, out _, out _));
        Assert.Equal(1, open.Count); // A
    }

    [Fact]
    public void AStopWhoseStartCameBeforeTheSessionPairsNothing()
    {
        var open = new OpenRequests();
        open.Start(A, 100, 1);

        Assert.False(open.TryStop(B, out _, out _));
        Assert.Equal(1, open.Count);
    }

    [Fact]
    public void AnActivityIdKeysAloneAndAnEmptyOneFallsBackToTheThread()
    {
        Assert.Equal(ActivityKey.Of(1, 10, 0), ActivityKey.Of(1, 10, 99));
        Assert.NotEqual(ActivityKey.Of(0, 0, 7), ActivityKey.Of(0, 0, 8));
    }
}
