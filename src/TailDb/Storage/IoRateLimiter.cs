using System.Diagnostics;

namespace TailDb.Storage;

/// <summary>
/// Paces one background client's I/O to a budget of bytes per second (the idea of RocksDB's
/// <c>rate_limiter</c>, for a single caller): the caller charges each chunk before it reads or
/// writes it, and sleeps while it is ahead of the budget. The sleeps are also where a background
/// thread gives its core back to requests, so with no budget each charge still yields.
/// <para>
/// Credit for idle time is capped at <see cref="MaxCredit"/>: a caller that paused does not
/// then burst at full speed to catch up.
/// </para>
/// </summary>
internal sealed class IoRateLimiter
{
    /// <summary>The most unused budget carried over, as time at the budgeted rate.</summary>
    internal static readonly TimeSpan MaxCredit = TimeSpan.FromMilliseconds(10);

    private readonly long _bytesPerSecond;
    private readonly double _ticksPerByte;
    private readonly long _maxCreditTicks;
    private readonly Func<long> _now;
    private readonly Action<TimeSpan> _sleep;
    private long _due = long.MinValue;

    /// <param name="bytesPerSecond">The budget; 0 means unlimited (each charge only yields).</param>
    public IoRateLimiter(long bytesPerSecond)
        : this(bytesPerSecond, Stopwatch.GetTimestamp, Thread.Sleep)
    {
    }

    /// <summary>With a clock (Stopwatch ticks) and a sleep of the caller's, so tests can check the schedule without timing it.</summary>
    internal IoRateLimiter(long bytesPerSecond, Func<long> now, Action<TimeSpan> sleep)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bytesPerSecond);
        _bytesPerSecond = bytesPerSecond;
        _ticksPerByte = bytesPerSecond == 0 ? 0 : (double)Stopwatch.Frequency / bytesPerSecond;
        _maxCreditTicks = (long)(MaxCredit.TotalSeconds * Stopwatch.Frequency);
        _now = now;
        _sleep = sleep;
    }

    /// <summary>Total time the charges slept to stay within the budget, as the clock measured it.</summary>
    public TimeSpan Slept { get; private set; }

    /// <summary>Bytes charged so far.</summary>
    public long Charged { get; private set; }

    /// <summary>Accounts for <paramref name="bytes"/> about to be read or written; sleeps first while the bytes charged before are ahead of the budget.</summary>
    public void Charge(int bytes)
    {
        Charged += bytes;
        if (_bytesPerSecond == 0)
        {
            Thread.Yield();
            return;
        }

        // A chunk starts once the chunks before it are paid for; its own cost delays the next one.
        long now = _now();
        long start = Math.Max(_due, now - _maxCreditTicks);
        _due = start + (long)(bytes * _ticksPerByte);
        if (start > now)
        {
            _sleep(Stopwatch.GetElapsedTime(now, start));

            // What the sleep took, not what was asked: Thread.Sleep rounds down to whole
            // milliseconds and the next charge waits for the rest, so a sum of the requests
            // counted each fraction twice and could exceed the copy's own duration.
            Slept += Stopwatch.GetElapsedTime(now, _now());
        }
    }
}
