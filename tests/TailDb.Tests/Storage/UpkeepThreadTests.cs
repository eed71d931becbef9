using System.Runtime.CompilerServices;
using TailDb.Storage;
using TailDb.TestSupport.Skipping;

namespace TailDb.Tests.Storage;

public sealed class UpkeepThreadTests
{
    private static T OnFreshThread<T>(Func<T> work)
    {
        T result = default!;
        var thread = new Thread(() => result = work());
        thread.Start();
        thread.Join();
        return result;
    }

    [LinuxFact]
    public void DotNetsLowestThreadPriorityLeavesTheNiceValueAloneOnLinux()
    {
        // Why UpkeepThread calls setpriority itself: the runtime does not renice a SCHED_OTHER thread.
        int nice = OnFreshThread(() =>
        {
            Thread.CurrentThread.Priority = ThreadPriority.Lowest;
            return UpkeepThread.CurrentNice();
        });

        Assert.Equal(0, nice);
    }

    [LinuxFact]
    public void LowRenicesTheThreadTo19AndSaysSo()
    {
        (CompactionPriority applied, int nice, int policy) = OnFreshThread(() =>
            (UpkeepThread.LowerCurrentThread(CompactionPriority.Low), UpkeepThread.CurrentNice(), UpkeepThread.CurrentPolicy()));

        Assert.Equal(CompactionPriority.Low, applied);
        Assert.Equal(19, nice);
        Assert.Equal(0, policy);
    }

    [LinuxFact]
    public void IdleMovesTheThreadToSchedIdleAndSaysSo()
    {
        (CompactionPriority applied, int policy) = OnFreshThread(() =>
            (UpkeepThread.LowerCurrentThread(CompactionPriority.Idle), UpkeepThread.CurrentPolicy()));

        Assert.Equal(CompactionPriority.Idle, applied);
        Assert.Equal(5, policy);
    }

    [LinuxFact]
    public void RunLowersOnlyItsOwnThreadNotTheCaller()
    {
        int before = UpkeepThread.CurrentNice();

        int inside = UpkeepThread.Run(CompactionPriority.Low, "test", UpkeepThread.CurrentNice, out CompactionPriority applied);

        Assert.Equal(19, inside);
        Assert.Equal(CompactionPriority.Low, applied);
        Assert.Equal(before, UpkeepThread.CurrentNice());
    }

    [Fact]
    public void NormalRunsOnTheCallersThread()
    {
        int caller = Environment.CurrentManagedThreadId;

        int ran = UpkeepThread.Run(CompactionPriority.Normal, "test", () => Environment.CurrentManagedThreadId, out CompactionPriority applied);

        Assert.Equal(caller, ran);
        Assert.Equal(CompactionPriority.Normal, applied);
    }

    [Fact]
    public void AFailureOnTheUpkeepThreadIsRethrownToTheCaller()
    {
        var e = Assert.Throws<IOException>(() =>
            UpkeepThread.Run<int>(CompactionPriority.Low, "test", () => throw new IOException("disk gone"), out _));

        Assert.Equal("disk gone", e.Message);
    }
}

/// <summary>A fact about Linux's scheduler, skipped elsewhere.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute([CallerMemberName] string member = "", [CallerFilePath] string file = "")
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only (setpriority and sched_setscheduler on a thread id)";
            DisplayName = SkipNotice.DisplayName(Skip, member, file);
        }
    }
}
