using System.Diagnostics;
using System.Runtime.CompilerServices;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Target;

/// <summary>
/// The in-process runner's schedule (<see cref="WorkloadRunner"/>) with the store call replaced
/// by a send: load thread t owns every Threads-th slot of the open-loop schedule and hands each
/// request to the pool at its intended start; the reply is recorded by the connection's reader,
/// from that intended start. A load thread does not wait for replies, only for a free pipeline
/// slot, so a dry pool delays the sends and the delay is charged to every request it held up.
/// </summary>
internal sealed class RemoteRunner
{
    private const int Padding = 16;

    private readonly ConnectionPool _pool;
    private readonly WorkloadPlan _plan;
    private readonly WorkloadOptions _options;
    private readonly long[] _nextOperation;

    public RemoteRunner(ConnectionPool pool, WorkloadPlan plan, WorkloadOptions options)
    {
        _pool = pool;
        _plan = plan;
        _options = options;
        _nextOperation = new long[options.Threads * Padding];
    }

    public IReadOnlyList<ThreadRecorder> Recorders => _pool.Recorders;

    public long Operations => Recorders.Sum(r => r.Operations);

    /// <summary>Runs one phase, then waits for its last replies; <paramref name="tick"/> is called about once a second.</summary>
    public PhaseOutcome Run(TimeSpan duration, CancellationToken cancellationToken, Action<TimeSpan>? tick = null)
    {
        _pool.ClearRecorders();
        _pool.ResetCounts();
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
                    ? RunOpenLoop(index, Volatile.Read(ref start), durationTicks, intervalTicks, cancellationToken)
                    : RunClosedLoop(index, Volatile.Read(ref start), durationTicks, cancellationToken);
            })
            {
                IsBackground = true,
                Name = $"load-{t}",
                Priority = ThreadPriority.AboveNormal,
            };
            workers[t].Start();
        }

        // Not Wait(cancellationToken): a stop before the phase starts ends it with nothing measured (WorkloadRunner).
        ready.Wait();
        Volatile.Write(ref start, Stopwatch.GetTimestamp());
        go.Set();
        foreach (var worker in workers)
        {
            while (!worker.Join(TimeSpan.FromSeconds(1)))
            {
                tick?.Invoke(Stopwatch.GetElapsedTime(start));
            }
        }

        TimeSpan elapsed = Stopwatch.GetElapsedTime(start);
        bool drained = _pool.Drain(_pool.DrainLimit());
        if (_pool.Broken is { } broken)
        {
            throw new LoadTestException(ExitCode.TargetFailed, broken);
        }

        if (!drained)
        {
            throw new LoadTestException(ExitCode.TargetFailed, $"{_pool.Outstanding} requests still unanswered {_pool.DrainLimit().TotalSeconds:0} s after the phase ended");
        }

        return new PhaseOutcome(elapsed, Operations, backlog.Sum(), cancellationToken.IsCancellationRequested);
    }

    /// <summary>Sends every key once as fast as the pool allows (the fill: SET each key, then GET each key), and waits for the replies.</summary>
    public void Bulk(OperationType type, CancellationToken cancellationToken)
    {
        for (int key = 0; key < _plan.Keys.Length && !cancellationToken.IsCancellationRequested; key++)
        {
            if (!_pool.Issue(Stopwatch.GetTimestamp(), new Operation(key, type, false)))
            {
                break;
            }
        }

        _pool.Drain(_pool.DrainLimit());
        if (_pool.Broken is { } broken)
        {
            throw new LoadTestException(ExitCode.TargetFailed, broken);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long RunOpenLoop(int thread, long start, long durationTicks, double intervalTicks, CancellationToken cancellationToken)
    {
        var operations = _plan.Operations[thread];
        int mask = operations.Length - 1;
        long end = start + durationTicks;
        double offset = intervalTicks * thread / _options.Threads;
        long slot = 0;
        while (!cancellationToken.IsCancellationRequested)
        {
            long intended = start + (long)(offset + (slot * intervalTicks));
            if (intended >= end)
            {
                return 0;
            }

            long now = PreciseWait.Until(intended);
            if (now >= end)
            {
                // Requests due before the end that a dry pool or a stall kept us from sending: reported, not hidden.
                return (long)((end - intended) / intervalTicks) + 1;
            }

            ref readonly Operation operation = ref operations[_nextOperation[thread * Padding]++ & mask];
            if (!_pool.Issue(intended, operation))
            {
                return 0;
            }

            slot++;
        }

        return 0;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long RunClosedLoop(int thread, long start, long durationTicks, CancellationToken cancellationToken)
    {
        var operations = _plan.Operations[thread];
        int mask = operations.Length - 1;
        long end = start + durationTicks;
        long now = Stopwatch.GetTimestamp();
        while (now < end && !cancellationToken.IsCancellationRequested)
        {
            // Back to back: the next request is due as soon as a pipeline slot frees.
            ref readonly Operation operation = ref operations[_nextOperation[thread * Padding]++ & mask];
            if (!_pool.Issue(now, operation))
            {
                return 0;
            }

            now = Stopwatch.GetTimestamp();
        }

        return 0;
    }
}
