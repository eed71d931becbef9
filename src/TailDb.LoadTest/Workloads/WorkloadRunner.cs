using System.Diagnostics;
using System.Runtime.CompilerServices;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Measurement;

namespace TailDb.LoadTest.Workloads;

/// <summary>What one phase (warm-up or measured) did.</summary>
public sealed record PhaseOutcome(TimeSpan Elapsed, long Operations, long Backlog, bool Interrupted);

/// <summary>
/// Drives the store from <see cref="WorkloadOptions.Threads"/> dedicated threads, released together.
/// Open loop (a rate): thread t owns every Threads-th slot of a fixed schedule and measures each
/// request from its intended start, so a stall is charged to every request it delayed
/// (coordinated-omission correction as wrk2 does); the uncorrected latency from the actual start is
/// recorded beside it. Closed loop (no rate): back-to-back requests, both latencies equal.
/// </summary>
public sealed class WorkloadRunner
{
    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private const int Padding = 16;

    private readonly WorkloadOptions _options;
    private readonly WorkloadPlan _plan;
    private readonly RequestExecutor[] _executors;
    private readonly long[] _nextOperation;

    private RequestLog? _log;

    /// <param name="injector">The --inject causes every request passes through; null when none.</param>
    public WorkloadRunner(TailDbStore store, WorkloadPlan plan, WorkloadOptions options, Injector? injector = null)
    {
        _options = options;
        _plan = plan;
        _executors = new RequestExecutor[options.Threads];
        // One cache line per thread: the threads bump these on every request.
        _nextOperation = new long[options.Threads * Padding];
        _recorders = new ThreadRecorder[options.Threads];
        for (int t = 0; t < options.Threads; t++)
        {
            _executors[t] = new RequestExecutor(store, plan, options, injector, t);
            _recorders[t] = new ThreadRecorder();
        }
    }

    private readonly ThreadRecorder[] _recorders;

    public IReadOnlyList<ThreadRecorder> Recorders => _recorders;

    public long Corrupt => _executors.Sum(e => e.Corrupt);

    public long Operations => Recorders.Sum(r => r.Operations);

    /// <summary>Runs one phase; <paramref name="tick"/> is called about once a second on the calling thread.</summary>
    /// <param name="log">When given, every request's arrival, start and done times are kept in it (open loop).</param>
    public PhaseOutcome Run(TimeSpan duration, CancellationToken cancellationToken, Action<TimeSpan>? tick = null, RequestLog? log = null)
    {
        _log = log;
        foreach (var recorder in Recorders)
        {
            recorder.Clear();
        }

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

        // Not Wait(cancellationToken): a stop that lands before the phase starts (Ctrl-C while the
        // worker is still filling the store, common under load) must end the phase with nothing
        // measured, not throw out of the worker; the threads see the token and return at once.
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

        return new PhaseOutcome(
            Stopwatch.GetElapsedTime(start),
            Operations,
            backlog.Sum(),
            cancellationToken.IsCancellationRequested);
    }

    // Fully optimized from the first call: a loop that runs for the whole phase would otherwise be
    // rejitted on stack (OSR) on the load thread itself, mid-measurement (seen in an injected
    // workstation trace: 124 ms of JIT on a load thread, under a load average of 50).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long RunOpenLoop(int thread, long start, long durationTicks, double intervalTicks, CancellationToken cancellationToken)
    {
        var executor = _executors[thread];
        var recorder = Recorders[thread];
        var operations = _plan.Operations[thread];
        int mask = operations.Length - 1;
        long end = start + durationTicks;
        // Threads interleave their slots so the combined arrivals are evenly spaced at the rate.
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
                // Requests due before the end that a stall kept us from sending: reported, not hidden.
                return (long)((end - intended) / intervalTicks) + 1;
            }

            ref readonly Operation operation = ref operations[_nextOperation[thread * Padding]++ & mask];
            bool traced = Start(operation, intended);
            OpKind kind = executor.Execute(operation);
            long done = Stopwatch.GetTimestamp();
            Stop(traced, kind);
            recorder.Record(kind, (long)((done - intended) * NanosecondsPerTick), (long)((done - now) * NanosecondsPerTick));
            _log?.Add(thread, intended, now, done);
            slot++;
        }

        return 0;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long RunClosedLoop(int thread, long start, long durationTicks, CancellationToken cancellationToken)
    {
        var executor = _executors[thread];
        var recorder = Recorders[thread];
        var operations = _plan.Operations[thread];
        int mask = operations.Length - 1;
        long end = start + durationTicks;
        long now = Stopwatch.GetTimestamp();
        while (now < end && !cancellationToken.IsCancellationRequested)
        {
            ref readonly Operation operation = ref operations[_nextOperation[thread * Padding]++ & mask];
            bool traced = Start(operation, now);
            OpKind kind = executor.Execute(operation);
            long done = Stopwatch.GetTimestamp();
            Stop(traced, kind);
            long latency = (long)((done - now) * NanosecondsPerTick);
            recorder.Record(kind, latency, latency);
            _log?.Add(thread, now, now, done);
            now = done;
        }

        return 0;
    }

    /// <summary>
    /// Opens the load test's Request activity around one store call. Its Start carries the request's
    /// arrival (its intended start, on the Stopwatch clock EventPipe uses), and its Stop is written
    /// just after the latency's end is read: so a trace's response times are the latencies recorded
    /// here, queue included, give or take the cost of writing one event.
    /// </summary>
    private static bool Start(in Operation operation, long arrival)
    {
        var log = LoadTestEventSource.Log;
        if (!log.RequestsEnabled())
        {
            return false;
        }

        log.RequestStart(arrival, (int)operation.Type);
        return true;
    }

    private static void Stop(bool traced, OpKind kind)
    {
        if (traced)
        {
            LoadTestEventSource.Log.RequestStop((int)kind);
        }
    }
}
