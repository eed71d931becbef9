using System.Diagnostics;
using HdrHistogram;
using TailDb.Diagnostics;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Target;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing;

namespace TailDb.LoadTest.FanOut;

/// <summary>
/// The fan-out client (the `fanout-client` child): every request of the open-loop schedule
/// (<see cref="LoadThreads"/>, as the other runners use it) is N Gets, one key per shard, sent at
/// once and waited for together. Each load thread has one connection per shard (direct) or N to
/// twemproxy (one per Get, so no Get waits behind another on a connection). The fill SETs every key
/// through the same route; the keys of shard s are those the ring puts on it.
/// </summary>
internal sealed class FanOutSession : IRequestSender, IDisposable
{
    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private readonly FanOutSpec _spec;
    private readonly WorkloadPlan _plan;
    private readonly byte[][][] _keysByShard;
    private readonly ShardConnection[][] _connections;
    private readonly FanOutWait[] _waits;
    private readonly ThreadRecorder[] _recorders;
    private long _errors;

    public FanOutSession(FanOutSpec spec)
    {
        ArgumentNullException.ThrowIfNull(spec);
        _spec = spec;
        int shards = spec.Shards.Count;
        _plan = WorkloadPlan.Create(spec.Workload);
        var ring = new KetamaRing(Twemproxy.ShardNames(shards));
        _keysByShard = [.. Enumerable.Range(0, shards).Select(s => _plan.Keys.Where(k => ring.ShardOf(k) == s).ToArray())];
        if (_keysByShard.FirstOrDefault(k => k.Length == 0) is not null)
        {
            throw new LoadTestException(ExitCode.InvalidArguments, $"fan-out: with {spec.Workload.Keys} keys a shard of {shards} got none; use more keys");
        }

        int threads = spec.Workload.Threads;
        _waits = [.. Enumerable.Range(0, threads).Select(_ => new FanOutWait())];
        _recorders = [.. Enumerable.Range(0, threads).Select(_ => new ThreadRecorder())];
        int maxCommand = RespCommands.MaxLength(WorkloadOptions.KeyBytes, spec.Workload.ValueSize);
        _connections = new ShardConnection[threads][];
        for (int t = 0; t < threads; t++)
        {
            _connections[t] = new ShardConnection[shards];
            for (int s = 0; s < shards; s++)
            {
                TargetAddress address = spec.Route == FanOutRoute.Twemproxy
                    ? spec.Proxy ?? throw new LoadTestException(ExitCode.InvalidArguments, "fan-out through twemproxy needs its address")
                    : spec.Shards[s];
                _connections[t][s] = new ShardConnection(address, s, maxCommand, _waits[t], spec.TimeoutMilliseconds);
            }
        }
    }

    public FanOutResult Run(CancellationToken cancellationToken)
    {
        WorkloadOptions workload = _spec.Workload;
        var events = LoadTestEventSource.Log;
        var phases = new List<PhaseSpan>();
        long start = Stopwatch.GetTimestamp();
        using (events.Mark(Tracing.Phase.Fill))
        {
            Fill(cancellationToken);
        }

        start = Ended(phases, Tracing.Phase.Fill, start);
        var threads = new LoadThreads(_plan, workload);
        using (events.Mark(Tracing.Phase.Warmup))
        {
            if (workload.WarmupSeconds > 0)
            {
                threads.Run(this, TimeSpan.FromSeconds(workload.WarmupSeconds), null, cancellationToken);
                Check();
            }
        }

        start = Ended(phases, Tracing.Phase.Warmup, start);
        foreach (ThreadRecorder recorder in _recorders)
        {
            recorder.Clear();
        }

        foreach (ShardConnection connection in _connections.SelectMany(c => c))
        {
            connection.Gets.Reset();
            connection.Recording = true;
        }

        Interlocked.Exchange(ref _errors, 0);
        TimeSpan pause = GC.GetTotalPauseDuration();
        (TimeSpan elapsed, long backlog) measured;
        using (events.Mark(Tracing.Phase.Measured))
        {
            measured = threads.Run(this, TimeSpan.FromSeconds(workload.DurationSeconds), null, cancellationToken);
        }

        Ended(phases, Tracing.Phase.Measured, start);
        Check();
        double clientPause = (GC.GetTotalPauseDuration() - pause).TotalMilliseconds;
        return Summarize(measured.elapsed, measured.backlog, clientPause, phases);
    }

    private FanOutResult Summarize(TimeSpan elapsed, long backlog, double clientPause, IReadOnlyList<PhaseSpan> phases)
    {
        int shards = _spec.Shards.Count;
        LongHistogram corrected = LatencyHistograms.Create(), uncorrected = LatencyHistograms.Create(), gets = LatencyHistograms.Create();
        foreach (ThreadRecorder recorder in _recorders)
        {
            foreach (OpKind kind in Enum.GetValues<OpKind>())
            {
                corrected.Add(recorder.Corrected(kind));
                uncorrected.Add(recorder.Uncorrected(kind));
            }
        }

        var perShard = new List<LatencySummary>();
        for (int s = 0; s < shards; s++)
        {
            LongHistogram shard = LatencyHistograms.Create();
            foreach (ShardConnection[] thread in _connections)
            {
                shard.Add(thread[s].Gets);
            }

            gets.Add(shard);
            perShard.Add(LatencySummary.From(shard));
        }

        LatencySummary get = LatencySummary.From(gets);
        long predicted = gets.TotalCount == 0 ? 0 : gets.GetValueAtPercentile(100 * Math.Pow(0.99, 1.0 / shards));
        return new FanOutResult
        {
            Route = _spec.Route,
            Shards = shards,
            MeasuredSeconds = elapsed.TotalSeconds,
            Requests = corrected.TotalCount,
            Backlog = backlog,
            Corrected = LatencySummary.From(corrected),
            Uncorrected = LatencySummary.From(uncorrected),
            Get = get,
            PerShard = perShard,
            PredictedP99 = predicted,
            PredictedShareOverGetP99 = 1 - Math.Pow(1 - 0.01, shards),
            MeasuredShareOverGetP99 = ShareAbove(uncorrected, get.P99),
            ErrorReplies = Interlocked.Read(ref _errors),
            ClientGcPauseMilliseconds = clientPause,
            Phases = phases,
        };
    }

    /// <summary>The share of a histogram's values above <paramref name="threshold"/> (bucket by bucket: within HdrHistogram's 3 digits).</summary>
    internal static double ShareAbove(LongHistogram histogram, long threshold)
    {
        if (histogram.TotalCount == 0)
        {
            return 0;
        }

        long above = histogram.RecordedValues().Where(v => v.ValueIteratedTo > threshold).Sum(v => v.CountAtValueIteratedTo);
        return (double)above / histogram.TotalCount;
    }

    /// <summary>SETs every key on its shard through the route, one key per shard at a time.</summary>
    private void Fill(CancellationToken cancellationToken)
    {
        ShardConnection[] connections = _connections[0];
        FanOutWait wait = _waits[0];
        int longest = _keysByShard.Max(k => k.Length);
        ReadOnlySpan<byte> value = _plan.Values.AsSpan(0, _spec.Workload.ValueSize);
        for (int i = 0; i < longest && !cancellationToken.IsCancellationRequested; i++)
        {
            int sending = _keysByShard.Count(k => i < k.Length);
            wait.Begin(sending);
            for (int s = 0; s < connections.Length; s++)
            {
                if (i < _keysByShard[s].Length)
                {
                    int length = RespCommands.WriteSet(connections[s].Output, _keysByShard[s][i], value);
                    connections[s].Send(Guid.Empty, length);
                }
            }

            if (!wait.Wait(_spec.TimeoutMilliseconds, out int errors) || errors > 0)
            {
                throw new LoadTestException(ExitCode.TargetFailed, $"fan-out fill ({_spec.Route}): {wait.Failure ?? (errors > 0 ? "a SET got an error reply" : $"no reply within {_spec.TimeoutMilliseconds} ms")}");
            }
        }
    }

    private void Check()
    {
        if (_waits.FirstOrDefault(w => w.Failure is not null) is { } failed)
        {
            throw new LoadTestException(ExitCode.TargetFailed, $"fan-out ({_spec.Route}): {failed.Failure}");
        }
    }

    /// <summary>One fan-out request: N Gets sent together, then the wait for all N replies.</summary>
    bool IRequestSender.Send(int thread, in Operation operation, long arrival, long now)
    {
        ShardConnection[] connections = _connections[thread];
        FanOutWait wait = _waits[thread];
        // Traced as the networked client's requests are (LoadTestEventContract): a Request with an
        // activity id of its own, each Get an Attempt nested in it, the shard as its connection.
        var log = LoadTestEventSource.Log;
        Guid request = log.RequestsEnabled() ? TailDbEventSource.NewActivityId() : Guid.Empty;
        if (request != Guid.Empty)
        {
            log.RequestStart(request, arrival, (int)OperationType.Read);
        }

        wait.Begin(connections.Length);
        long sent = Stopwatch.GetTimestamp();
        for (int s = 0; s < connections.Length; s++)
        {
            byte[][] keys = _keysByShard[s];
            int length = RespCommands.WriteGet(connections[s].Output, keys[operation.Key % keys.Length]);
            connections[s].Send(request, length);
        }

        if (!wait.Wait(_spec.TimeoutMilliseconds, out int errors))
        {
            wait.Fail(wait.Failure ?? $"a request's {connections.Length} replies did not all come within {_spec.TimeoutMilliseconds} ms");
            return false;
        }

        // The request ends with its last reply, stamped where it arrived: the load thread's own wake-up
        // after it is not the shards' doing (on 2 busy cores it can take milliseconds).
        long done = 0;
        foreach (ShardConnection connection in connections)
        {
            done = Math.Max(done, connection.ReplyAt);
        }

        OpKind kind = errors > 0 ? OpKind.Failed : OpKind.GetFoundRemote;
        if (errors > 0)
        {
            Interlocked.Add(ref _errors, errors);
        }

        if (request != Guid.Empty)
        {
            log.RequestStop(request, (int)kind, 0, done);
        }

        _recorders[thread].Record(kind, (long)((done - arrival) * NanosecondsPerTick), (long)((done - sent) * NanosecondsPerTick));
        return true;
    }

    private static long Ended(List<PhaseSpan> phases, Tracing.Phase phase, long start)
    {
        long now = Stopwatch.GetTimestamp();
        phases.Add(new PhaseSpan(phase, start, now));
        return now;
    }

    public void Dispose()
    {
        foreach (ShardConnection connection in _connections.SelectMany(c => c))
        {
            connection.Dispose();
        }

        foreach (FanOutWait wait in _waits)
        {
            wait.Dispose();
        }
    }
}
