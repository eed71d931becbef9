using System.Diagnostics;
using TailDb.Storage;

namespace TailDb.Tests.Storage;

/// <summary>The limiter on a fake clock that only its own sleeps advance: the schedule, not a timing.</summary>
public sealed class IoRateLimiterTests
{
    private long _now = 1_000 * Stopwatch.Frequency;
    private TimeSpan _slept;

    private IoRateLimiter Limiter(long bytesPerSecond) => new(bytesPerSecond, () => _now, wait =>
    {
        _slept += wait;
        _now += (long)(wait.TotalSeconds * Stopwatch.Frequency);
    });

    private void Pass(TimeSpan time) => _now += (long)(time.TotalSeconds * Stopwatch.Frequency);

    [Fact]
    public void ChargingTenSecondsOfBudgetSleepsForAllButTheLastChunkLessTheStartingCredit()
    {
        IoRateLimiter limiter = Limiter(1 << 20);

        for (int i = 0; i < 160; i++)
        {
            limiter.Charge(64 << 10); // 10 MiB in all, at 1 MiB/s
        }

        // 160 chunks of 62.5 ms: the first starts on the credit, the last is paid for by whoever comes next.
        Assert.InRange(_slept.TotalSeconds, 10 - 0.0625 - IoRateLimiter.MaxCredit.TotalSeconds - 0.001, 10 - 0.0625 - IoRateLimiter.MaxCredit.TotalSeconds + 0.001);
        Assert.Equal(_slept, limiter.Slept);
        Assert.Equal(10L << 20, limiter.Charged);
    }

    [Fact]
    public void ACallerSlowerThanTheBudgetNeverSleeps()
    {
        IoRateLimiter limiter = Limiter(1 << 20);

        for (int i = 0; i < 100; i++)
        {
            limiter.Charge(64 << 10);
            Pass(TimeSpan.FromMilliseconds(100)); // 64 KiB per 100 ms: 640 KiB/s
        }

        Assert.Equal(TimeSpan.Zero, limiter.Slept);
    }

    [Fact]
    public void IdleTimeEarnsAtMostTheCappedCreditNotABurst()
    {
        IoRateLimiter limiter = Limiter(1 << 20);
        limiter.Charge(1);
        Pass(TimeSpan.FromMinutes(1));

        for (int i = 0; i < 16; i++)
        {
            limiter.Charge(64 << 10); // 1 MiB: one second of budget, after a minute idle
        }

        // 16 chunks of 62.5 ms after the pause: all but the last wait, less only the capped credit.
        Assert.True(limiter.Slept >= TimeSpan.FromMilliseconds(15 * 62.5) - IoRateLimiter.MaxCredit - TimeSpan.FromMilliseconds(1), $"slept {limiter.Slept}");
    }

    [Fact]
    public void NoBudgetNeverSleeps()
    {
        IoRateLimiter limiter = Limiter(0);

        for (int i = 0; i < 1000; i++)
        {
            limiter.Charge(1 << 20);
        }

        Assert.Equal(TimeSpan.Zero, limiter.Slept);
        Assert.Equal(1000L << 20, limiter.Charged);
    }

    [Fact]
    public void ANegativeBudgetIsRefused() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new IoRateLimiter(-1));
}
