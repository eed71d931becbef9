using System.Diagnostics;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Injections;
using TailDb.LoadTest.Measurement;

namespace TailDb.LoadTest.Workloads;

/// <summary>What one phase (warm-up or measured) did.</summary>
public sealed record PhaseOutcome(TimeSpan Elapsed, long Operations, long Backlog, bool Interrupted);

/// <summary>
/// Drives the store on <see cref="LoadThreads"/>' schedule: each request is measured from its
/// arrival (its intended start), so a stall is charged to every request it delayed (coordinated-omission
/// correction as wrk2 does); the uncorrected latency from the actual start is recorded beside it.
/// Closed loop (no rate): back-to-back requests, both latencies equal.
/// </summary>
public sealed class WorkloadRunner : IRequestSender
{
    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private readonly WorkloadOptions _options;
    private readonly WorkloadPlan _plan;
    private readonly RequestExecutor[] _executors;
    private readonly LoadThreads _threads;

    private RequestLog? _log;

    /// <param name="injector">The --inject causes every request passes through; null when none.</param>
    public WorkloadRunner(TailDbStore store, WorkloadPlan plan, WorkloadOptions options, Injector? injector = null)
    {
        _options = options;
        _plan = plan;
        _executors = new RequestExecutor[options.Threads];
        _threads = new LoadThreads(plan, options);
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

        var (elapsed, backlog) = _threads.Run(this, duration, tick, cancellationToken);
        return new PhaseOutcome(elapsed, Operations, backlog, cancellationToken.IsCancellationRequested);
    }

    /// <summary>
    /// One request on load thread <paramref name="thread"/>, measured from its arrival and from its
    /// actual start. Traced, the load test's Request activity encloses the store call: its Start
    /// carries the request's arrival (on the Stopwatch clock EventPipe uses), and its Stop is written
    /// just after the latency's end is read, so a trace's response times are the latencies recorded
    /// here, queue included, give or take one event's cost.
    /// </summary>
    bool IRequestSender.Send(int thread, in Operation operation, long arrival, long now)
    {
        var log = LoadTestEventSource.Log;
        bool traced = log.RequestsEnabled();
        Guid outer = traced ? log.BeginRequest(arrival, (int)operation.Type) : default;
        OpKind kind = _executors[thread].Execute(operation);
        long done = Stopwatch.GetTimestamp();
        if (traced)
        {
            log.EndRequest(outer, (int)kind, _executors[thread].LastValueBytes, done);
        }

        _recorders[thread].Record(kind, (long)((done - arrival) * NanosecondsPerTick), (long)((done - now) * NanosecondsPerTick));
        _log?.Add(thread, arrival, now, done, _executors[thread].LastEffect);
        return true;
    }
}
