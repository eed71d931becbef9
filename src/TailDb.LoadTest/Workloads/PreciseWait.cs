using System.Diagnostics;
using System.Runtime.InteropServices;

namespace TailDb.LoadTest.Workloads;

/// <summary>
/// Waits until a Stopwatch timestamp with microsecond precision without burning a core.
/// Thread.Sleep has millisecond granularity (an open loop at 4000 req/s on 2 threads has 500 µs
/// between a thread's requests), and spinning both load threads would take the CPUs the GC's
/// and the store's own threads need, which is exactly what the load test measures. On Linux,
/// where Stopwatch is CLOCK_MONOTONIC in nanoseconds, clock_nanosleep to an absolute deadline a
/// little early (timer slack is 50 µs) and spin the rest; elsewhere sleep/yield/spin.
/// </summary>
internal static partial class PreciseWait
{
    private const int ClockMonotonic = 1;
    private const int TimerAbsolute = 1;
    private static readonly long EarlyTicks = Stopwatch.Frequency / 10_000; // 100 µs
    private static readonly long SleepThresholdTicks = Stopwatch.Frequency * 3 / 2000; // 1.5 ms
    private static readonly bool KernelSleep = OperatingSystem.IsLinux() && Stopwatch.Frequency == 1_000_000_000 && Probe();

    /// <summary>Returns the timestamp at which the wait ended (at or after <paramref name="target"/>).</summary>
    public static long Until(long target)
    {
        long now = Stopwatch.GetTimestamp();
        if (now >= target)
        {
            return now;
        }

        if (KernelSleep && target - now > EarlyTicks)
        {
            long wake = target - EarlyTicks;
            var deadline = new TimeSpec { Seconds = wake / 1_000_000_000, Nanoseconds = wake % 1_000_000_000 };
            _ = ClockNanosleep(ClockMonotonic, TimerAbsolute, in deadline, IntPtr.Zero); // EINTR: the spin below finishes the wait
            now = Stopwatch.GetTimestamp();
        }

        int spins = 0;
        while (now < target)
        {
            if (target - now > SleepThresholdTicks)
            {
                Thread.Sleep(1);
            }
            else if (++spins % 32 == 0)
            {
                Thread.Yield();
            }
            else
            {
                Thread.SpinWait(30);
            }

            now = Stopwatch.GetTimestamp();
        }

        return now;
    }

    private static bool Probe()
    {
        try
        {
            var past = default(TimeSpec);
            return ClockNanosleep(ClockMonotonic, TimerAbsolute, in past, IntPtr.Zero) == 0;
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            return false; // not glibc (musl names its library differently): sleep/yield/spin only
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc.so.6", EntryPoint = "clock_nanosleep")]
    private static partial int ClockNanosleep(int clockId, int flags, in TimeSpec request, IntPtr remaining);
}
