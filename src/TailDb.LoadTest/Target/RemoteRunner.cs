using System.Diagnostics;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Workloads;

namespace TailDb.LoadTest.Target;

/// <summary>
/// <see cref="LoadThreads"/>' schedule, as the in-process runner uses it, with the store call
/// replaced by a send: each request goes to the pool at its arrival; the reply is recorded
/// by the connection's reader, from that arrival. A load thread does not wait for replies, only for a free pipeline
/// slot, so a dry pool delays the sends and the delay is charged to every request it held up.
/// </summary>
internal sealed class RemoteRunner : IRequestSender
{
    private readonly ConnectionPool _pool;
    private readonly WorkloadPlan _plan;
    private readonly LoadThreads _threads;

    public RemoteRunner(ConnectionPool pool, WorkloadPlan plan, WorkloadOptions options)
    {
        _pool = pool;
        _plan = plan;
        _threads = new LoadThreads(plan, options);
    }

    public IReadOnlyList<ThreadRecorder> Recorders => _pool.Recorders;

    public long Operations => Recorders.Sum(r => r.Operations);

    /// <summary>Runs one phase, then waits for its last replies; <paramref name="tick"/> is called about once a second.</summary>
    public PhaseOutcome Run(TimeSpan duration, CancellationToken cancellationToken, Action<TimeSpan>? tick = null)
    {
        _pool.ClearRecorders();
        _pool.ResetCounts();
        var (elapsed, backlog) = _threads.Run(this, duration, tick, cancellationToken);
        bool drained = _pool.Drain(_pool.DrainLimit());
        if (_pool.Broken is { } broken)
        {
            throw new LoadTestException(ExitCode.TargetFailed, broken);
        }

        if (!drained)
        {
            throw new LoadTestException(ExitCode.TargetFailed, $"{_pool.Outstanding} requests still unanswered {_pool.DrainLimit().TotalSeconds:0} s after the phase ended");
        }

        return new PhaseOutcome(elapsed, Operations, backlog, cancellationToken.IsCancellationRequested);
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

    /// <summary>Hands the request to the pool at its arrival; false when the pool is broken.</summary>
    bool IRequestSender.Send(int thread, in Operation operation, long arrival, long now) => _pool.Issue(arrival, operation);
}
