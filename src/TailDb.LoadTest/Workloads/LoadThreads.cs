using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace TailDb.LoadTest.Workloads;

/// <summary>What a load thread does with one request of the schedule: run it in process, or send it.</summary>
internal interface IRequestSender
{
    /// <summary>
    /// Runs or sends <paramref name="operation"/>, due at <paramref name="arrival"/> and begun at
    /// <paramref name="now"/>; false ends the thread's phase (the target is gone).
    /// </summary>
    bool Send(int thread, in Operation operation, long arrival, long now);
}

/// <summary>
/// The load threads of one phase and their schedule, shared by the in-process runner and the
/// networked one. <see cref="WorkloadOptions.Threads"/> dedicated threads are released together.
/// Open loop (a rate): thread t owns every Threads-th slot of a fixed schedule, so the combined
/// arrivals are evenly spaced at the rate, and each request's arrival (its intended start) is handed on, so a
/// stall is charged to every request it delayed (wrk2's coordinated-omission correction). Closed
/// loop (no rate): back to back, the next request due as soon as the last one returns.
/// </summary>
internal sealed class LoadThreads
{
    private const int Padding = 16;

    private readonly WorkloadPlan _plan;
    private readonly WorkloadOptions _options;
    // One cache line per thread: the threads bump these on every request.
    private readonly long[] _nextOperation;

    public LoadThreads(WorkloadPlan plan, WorkloadOptions options)
    {
        _plan = plan;
        _options = options;
        _nextOperation = new long[options.Threads * Padding];
    }

    /// <summary>Runs one phase; <paramref name="tick"/> is called about once a second on the calling thread.</summary>
    /// <returns>The phase's length and the requests due before its end that were never begun (reported, not hidden).</returns>
    public (TimeSpan Elapsed, long Backlog) Run<TSender>(TSender sender, TimeSpan duration, Action<TimeSpan>? tick, CancellationToken cancellationToken)
        where TSender : class, IRequestSender
    {
        int threads = _options.Threads;
        double intervalTicks = _options.Rate is { } rate ? Stopwatch.Frequency * threads / rate : 0;
        long durationTicks = (long)(duration.TotalSeconds * Stopwatch.Frequency);
        var backlog = new long[threads];
        using var ready = new CountdownEvent(threads);
        using var go = new ManualResetEventSlim();
        long start = 0;
        var workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            int index = t;
            workers[t] = new Thread(() =>
            {
                ready.Signal();
                go.Wait();
                backlog[index] = intervalTicks > 0
                    ? RunOpenLoop(sender, index, Volatile.Read(ref start), durationTicks, intervalTicks, cancellationToken)
                    : RunClosedLoop(sender, index, Volatile.Read(ref start), durationTicks, cancellationToken);
            })
            {
                IsBackground = true,
                Name = $"load-{t}",
                Priority = ThreadPriority.AboveNormal,
            };
            workers[t].Start();
        }

        // Not Wait(cancellationToken): a stop that lands before the phase starts (Ctrl-C while the
        // worker is still filling the store, common under load) must end the phase with nothing
        // measured, not throw out of the worker; the threads see the token and return at once.
        ready.Wait(CancellationToken.None);
        Volatile.Write(ref start, Stopwatch.GetTimestamp());
        go.Set();
        foreach (var worker in workers)
        {
            while (!worker.Join(TimeSpan.FromSeconds(1)))
            {
                tick?.Invoke(Stopwatch.GetElapsedTime(start));
            }
        }

        return (Stopwatch.GetElapsedTime(start), backlog.Sum());
    }

    // Fully optimized from the first call: a loop that runs for the whole phase would otherwise be
    // rejitted on stack (OSR) on the load thread itself, mid-measurement (seen in an injected
    // workstation trace: 124 ms of JIT on a load thread, under a load average of 50).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long RunOpenLoop<TSender>(TSender sender, int thread, long start, long durationTicks, double intervalTicks, CancellationToken cancellationToken)
        where TSender : class, IRequestSender
    {
        var operations = _plan.Operations[thread];
        int mask = operations.Length - 1;
        long end = start + durationTicks;
        double offset = intervalTicks * thread / _options.Threads;
        double burstFactor = _options.BurstFactor;
        double periodTicks = _options.BurstPeriodMilliseconds * Stopwatch.Frequency / 1000;
        for (long slot = 0; !cancellationToken.IsCancellationRequested; slot++)
        {
            double due = offset + (slot * intervalTicks);
            long arrival = start + (long)(burstFactor > 1 ? Squeeze(due, burstFactor, periodTicks) : due);
            if (arrival >= end)
            {
                return 0;
            }

            long now = PreciseWait.Until(arrival);
            if (now >= end)
            {
                // Requests due before the end that a stall kept us from beginning.
                return (long)((end - arrival) / intervalTicks) + 1;
            }

            if (!sender.Send(thread, operations[_nextOperation[thread * Padding]++ & mask], arrival, now))
            {
                return 0;
            }
        }

        return 0;
    }

    /// <summary>
    /// --burst-factor: an evenly spaced arrival at <paramref name="due"/> (ticks from the phase's
    /// start) moved into the first 1/<paramref name="factor"/> of its period, keeping its order: each
    /// period keeps its count of requests, so the mean rate is unchanged.
    /// </summary>
    public static double Squeeze(double due, double factor, double periodTicks)
    {
        double period = Math.Floor(due / periodTicks) * periodTicks;
        return period + ((due - period) / factor);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long RunClosedLoop<TSender>(TSender sender, int thread, long start, long durationTicks, CancellationToken cancellationToken)
        where TSender : class, IRequestSender
    {
        var operations = _plan.Operations[thread];
        int mask = operations.Length - 1;
        long end = start + durationTicks;
        long now = Stopwatch.GetTimestamp();
        while (now < end && !cancellationToken.IsCancellationRequested)
        {
            if (!sender.Send(thread, operations[_nextOperation[thread * Padding]++ & mask], now, now))
            {
                return 0;
            }

            now = Stopwatch.GetTimestamp();
        }

        return 0;
    }
}
