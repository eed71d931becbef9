using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// Pins the calling thread to the CPU that runs a benchmark's own call fastest right now, for rows
/// on a VM whose vCPUs take turns at two speeds for minutes at a time (this one: a bare
/// lookup-and-copy at 23 ns on one and 35 ns on the other; docs/benchmarks.md, "The Get-hit rows'
/// two speeds: the vCPUs"). Each process then measures the machine's best vCPU rather than the one
/// its thread happened to start on, on both sides of a ratio.
/// <para>
/// Only this thread is pinned (sched_setaffinity(0) names the calling thread): the runtime's own
/// threads (tiering, GC) keep both CPUs. Pinning the whole process (BenchmarkDotNet's Affinity,
/// or taskset) made every Get-hit row 90-110 ns, 4x; a thread pinned alone runs at the free
/// thread's speed (probe, 2026-11-27 22:25: 24.2 and 24.8 ns on CPU 0 and 1, alternated per 100 ms).
/// BenchmarkDotNet calls [GlobalSetup] and the measured iterations on one thread, so a setup that
/// ends here pins the row.
/// </para>
/// </summary>
public static class FastestCpu
{
    private const int RoundsPerCpu = 5;

    /// <summary>A migrated thread first refills the new CPU's caches: calls for this long are not timed.</summary>
    private static readonly TimeSpan Settle = TimeSpan.FromMilliseconds(3);

    private static readonly TimeSpan Timed = TimeSpan.FromMilliseconds(20);

    /// <summary>Times <paramref name="call"/> on each CPU this process may use, alternating, and
    /// pins the thread to the fastest. Prints what it measured, one line, into BenchmarkDotNet's
    /// log; a machine that cannot pin says so and is left alone.</summary>
    public static void PinTo(Action call)
    {
        if (!OperatingSystem.IsLinux())
        {
            Print("fastest CPU: not pinned (Linux only)");
            return;
        }

        ulong allowed = 0;
        if (sched_getaffinity(0, sizeof(ulong), ref allowed) != 0)
        {
            Print($"fastest CPU: not pinned (sched_getaffinity failed, errno {Marshal.GetLastPInvokeError()})");
            return;
        }

        var cpus = Enumerable.Range(0, 64).Where(c => (allowed & (1UL << c)) != 0).ToArray();
        if (cpus.Length < 2)
        {
            Print($"fastest CPU: not pinned (one CPU allowed: {string.Join(",", cpus)})");
            return;
        }

        // Round-robin over the CPUs, so a speed that changes during the probe moves every CPU's times alike.
        var times = new double[cpus.Length][];
        for (int i = 0; i < cpus.Length; i++)
        {
            times[i] = new double[RoundsPerCpu];
        }

        for (int round = 0; round < RoundsPerCpu; round++)
        {
            for (int i = 0; i < cpus.Length; i++)
            {
                if (!Pin(cpus[i]))
                {
                    Pin(allowed);
                    Print($"fastest CPU: not pinned (sched_setaffinity to CPU {cpus[i]} failed)");
                    return;
                }

                Run(call, Settle);
                times[i][round] = Run(call, Timed);
            }
        }

        double[] medians = [.. times.Select(Median)];
        int best = cpus[Array.IndexOf(medians, medians.Min())];
        Pin(best);
        Print(string.Create(CultureInfo.InvariantCulture,
            $"fastest CPU: pinned to CPU {best}; ns per call by CPU (median of {RoundsPerCpu}): {string.Join(", ", cpus.Select((c, i) => $"{c}: {medians[i]:F1}"))}"));
    }

    /// <summary>Calls in batches of 1,000 for at least <paramref name="duration"/>; returns ns per call.</summary>
    private static double Run(Action call, TimeSpan duration)
    {
        long calls = 0;
        long start = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(start) < duration)
        {
            for (int i = 0; i < 1_000; i++)
            {
                call();
            }

            calls += 1_000;
        }

        return Stopwatch.GetElapsedTime(start).TotalNanoseconds / calls;
    }

    private static bool Pin(int cpu) => Pin(1UL << cpu);

    private static bool Pin(ulong mask) => sched_setaffinity(0, sizeof(ulong), ref mask) == 0;

    private static double Median(double[] values)
    {
        Array.Sort(values);
        return values[values.Length / 2];
    }

    private static void Print(string line) => Console.WriteLine("// " + line);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, nint size, ref ulong mask);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getaffinity(int pid, nint size, ref ulong mask);
}
