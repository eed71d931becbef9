using TailDb.Analyzer.Sources;

namespace TailDb.Analyzer.Tests.Sources;

public sealed class ActivityPairsTests
{
    private static readonly ActivityKey A = ActivityKey.Of(1, 10, 0, 1);
    private static readonly ActivityKey B = ActivityKey.Of(2, 10, 0, 2);
    private static readonly ActivityKey Thread7 = ActivityKey.Of(0, 0, 7, 0);

    [Fact]
    public void AStopTakesTheStartJustBeforeIt()
    {
        var open = new ActivityPairs<long>();
        open.Start(A, 100, out _);

        Assert.True(open.TryStop(A, out var start));
        Assert.Equal(100L, start);
        Assert.Equal(0, open.Count);
        Assert.False(open.TryStop(A, out _));
    }

    [Fact]
    public void InterleavedRequestsEachFindTheirOwnStart()
    {
        var open = new ActivityPairs<long>();
        open.Start(A, 100, out _);
        open.Start(B, 150, out _);
        open.Start(Thread7, 160, out _);

        Assert.True(open.TryStop(A, out var startA));
        Assert.True(open.TryStop(Thread7, out var start7));
        Assert.True(open.TryStop(B, out var startB));
        Assert.Equal((100L, 150L, 160L), (startA, startB, start7));
        Assert.Equal(0, open.Count);
    }

    [Fact]
    public void AThreadsNewStartReplacesItsOlderOpenOneWhoseStopWasLost()
    {
        var open = new ActivityPairs<long>();
        open.Start(Thread7, 100, out _);   // its Stop never comes
        open.Start(A, 120, out _);         // pushes thread 7's open Start out of the slot
        Assert.True(open.Start(Thread7, 200, out var dropped));

        Assert.Equal(100, dropped);
        Assert.Equal(1, open.Dropped);
        Assert.True(open.TryStop(Thread7, out var start));
        Assert.Equal(200, start);
        Assert.False(open.TryStop(Thread7, out _));
        Assert.Equal(1, open.Count); // A
    }

    [Fact]
    public void ANewStartOfTheKeyStillInTheSlotDropsTheOlderOne()
    {
        var open = new ActivityPairs<long>();
        open.Start(Thread7, 100, out _);

        Assert.True(open.Start(Thread7, 200, out var dropped));
        Assert.Equal(100, dropped);
        Assert.Equal(1, open.Count);
    }

    [Fact]
    public void KindsNestOnOneThreadWithoutIds()
    {
        var open = new ActivityPairs<long>();
        var request = ActivityKey.Of(0, 0, 7, 0);
        var fileRead = ActivityKey.Of(0, 0, 7, 1);
        open.Start(request, 100, out _);

        Assert.False(open.Start(fileRead, 110, out _));
        Assert.True(open.TryStop(fileRead, out var read));
        Assert.True(open.TryStop(request, out var whole));
        Assert.Equal((110L, 100L), (read, whole));
        Assert.Equal(0, open.Dropped);
    }

    [Fact]
    public void AStopWhoseStartCameBeforeTheSessionPairsNothing()
    {
        var open = new ActivityPairs<long>();
        open.Start(A, 100, out _);

        Assert.False(open.TryStop(B, out _));
        Assert.Equal(1, open.Count);
        Assert.Equal([100L], open.Open());
    }

    [Fact]
    public void AnActivityIdKeysAloneAndAnEmptyOneFallsBackToTheThread()
    {
        Assert.Equal(ActivityKey.Of(1, 10, 0, 3), ActivityKey.Of(1, 10, 99, 3));
        Assert.NotEqual(ActivityKey.Of(0, 0, 7, 3), ActivityKey.Of(0, 0, 8, 3));
        Assert.NotEqual(ActivityKey.Of(1, 10, 0, 3), ActivityKey.Of(1, 10, 0, 4));
    }

    [Fact]
    public void AGuidKeysAsItsTwoHalvesDo()
    {
        var id = new Guid([0x2a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0]);

        Assert.Equal(new ActivityKey(0x2a, unchecked((long)0xf000000000000000), 0, 5), ActivityKey.Of(id, 9, 5));
        Assert.Equal(new ActivityKey(0, 0, 9, 5), ActivityKey.Of(Guid.Empty, 9, 5));
    }
}
