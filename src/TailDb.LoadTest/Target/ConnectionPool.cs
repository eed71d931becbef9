using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using HdrHistogram;
using TailDb.Diagnostics;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing;

namespace TailDb.LoadTest.Target;

/// <summary>
/// A fixed pool of <see cref="ClientOptions.Connections"/> connections to one RESP server. A request
/// takes a free pipeline slot on some connection, waiting (on a monitor, without allocating) when
/// every slot is taken: the pool running dry shows as queue time. A monitor thread times requests
/// out and reopens lost connections (a server restart, a dropped socket), with a doubling backoff;
/// a retry thread sends timed-out requests and those lost in flight again, on another connection.
/// The pool is broken only when no connection has been alive for as long as a request may take.
/// </summary>
internal sealed class ConnectionPool : IDisposable
{
    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;
    private const int FirstReconnectDelayMilliseconds = 50;
    private const int MaxReconnectDelayMilliseconds = 1000;

    private readonly RespClientConnection[] _connections;
    private readonly TargetAddress _target;
    private readonly int _maxCommandBytes;
    // Per connection slot, owned by the monitor thread: when to try reopening it, and the delay after that.
    private readonly long[] _reconnectDue;
    private readonly int[] _reconnectDelay;
    private readonly WorkloadPlan _plan;
    private readonly WorkloadOptions _workload;
    private readonly ClientOptions _options;
    // Written by the session between phases (the fill's own timeout), read by the monitor thread.
    private long _timeoutTicks;
    private int _timeoutMilliseconds;
    private readonly object _wait = new();
    private readonly Lock _retryLock = new();
    private readonly Queue<(TargetRequest Request, long Due, int Avoid)> _retries = new(1024);
    private readonly SemaphoreSlim _retrySignal = new(0);
    private readonly Thread _monitor;
    private readonly Thread _retrier;
    private readonly CancellationTokenSource _stop = new();
    private int _waiters;
    private int _next;
    private int _live;
    private long _outstanding;
    private string? _broken;
    private string? _lastLoss;
    private long _allLostSince;
    private string? _firstError;
    private long _timeouts;
    private long _retried;
    private long _failures;
    private long _errors;
    private long _lateReplies;
    private long _poolWaits;
    private long _reconnects;
    private long _lostInFlight;

    private ConnectionPool(TargetAddress target, WorkloadPlan plan, WorkloadOptions workload, ClientOptions options, int connections)
    {
        _target = target;
        _maxCommandBytes = RespCommands.MaxLength(WorkloadOptions.KeyBytes, workload.MaxValueBytes);
        _reconnectDue = new long[connections];
        _reconnectDelay = new int[connections];
        _plan = plan;
        _workload = workload;
        _options = options;
        UseTimeout(options.TimeoutMilliseconds);
        _connections = new RespClientConnection[connections];
        _monitor = new Thread(MonitorLoop) { IsBackground = true, Name = "resp-timeouts" };
        _retrier = new Thread(RetryLoop) { IsBackground = true, Name = "resp-retries" };
    }

    /// <summary>Failed requests (no reply after every retry), recorded by the monitor thread.</summary>
    public ThreadRecorder FailureRecorder { get; } = new();

    /// <summary>Every recorder that holds this pool's latencies: one per connection and the failures'.</summary>
    public IReadOnlyList<ThreadRecorder> Recorders => [.. _recorders, FailureRecorder];

    public IEnumerable<LongHistogram> QueueHistograms => _queues;

    // A connection's recorder and queue histogram belong to its slot, not to one socket: a reopened
    // connection records into the same ones, so nothing measured is lost with the old socket.
    private ThreadRecorder[] _recorders = [];
    private LongHistogram[] _queues = [];

    /// <summary>Why the pool cannot send any more (every connection lost); null while it can.</summary>
    public string? Broken => Volatile.Read(ref _broken);

    public string? FirstError => Volatile.Read(ref _firstError);

    public long Outstanding => Interlocked.Read(ref _outstanding);

    public ClientCounts Counts => new(
        Interlocked.Read(ref _timeouts), Interlocked.Read(ref _retried), Interlocked.Read(ref _failures),
        Interlocked.Read(ref _errors), Interlocked.Read(ref _lateReplies), Interlocked.Read(ref _poolWaits),
        Interlocked.Read(ref _reconnects), Interlocked.Read(ref _lostInFlight));

    /// <summary>Opens every connection; an unreachable server is one clear line (exit <see cref="ExitCode.TargetUnreachable"/>).</summary>
    public static ConnectionPool Open(TargetAddress target, WorkloadPlan plan, WorkloadOptions workload, ClientOptions options)
    {
        var pool = new ConnectionPool(target, plan, workload, options, options.Connections);
        pool._recorders = [.. Enumerable.Range(0, options.Connections).Select(_ => new ThreadRecorder())];
        pool._queues = [.. Enumerable.Range(0, options.Connections).Select(_ => LatencyHistograms.Create())];
        try
        {
            for (int i = 0; i < options.Connections; i++)
            {
                Socket socket = RespControl.Connect(target, options.TimeoutMilliseconds);
                pool._connections[i] = pool.NewConnection(i, socket);
            }
        }
        catch
        {
            foreach (RespClientConnection? connection in pool._connections)
            {
                connection?.Dispose();
            }

            throw;
        }

        pool._live = options.Connections;
        foreach (RespClientConnection connection in pool._connections)
        {
            connection.StartReading();
        }

        pool._monitor.Start();
        pool._retrier.Start();
        return pool;
    }

    /// <summary>
    /// Sends a new request, waiting for a free slot when the pool is dry. False when the pool is
    /// broken or stopping (the request is then not sent and not counted).
    /// </summary>
    public bool Issue(long arrival, in Operation operation)
    {
        // Traced, the request is an activity from here (its load thread took it) to its reply or give-up.
        LoadTestEventSource log = LoadTestEventSource.Log;
        Guid activity = Guid.Empty;
        if (log.RequestsEnabled())
        {
            activity = TailDbEventSource.NewActivityId();
            log.RequestStart(activity, arrival, (int)operation.Type);
        }

        Interlocked.Increment(ref _outstanding);
        if (Send(new TargetRequest(arrival, operation.Key, operation.Type, operation.Large, 0, activity), avoid: -1))
        {
            return true;
        }

        Interlocked.Decrement(ref _outstanding);
        if (activity != Guid.Empty)
        {
            log.RequestStop(activity, (int)OpKind.Failed, 0, Stopwatch.GetTimestamp());
        }

        return false;
    }

    /// <summary>The value bytes a request moved, as its RequestStop carries them: a GET's reply, a SET's value.</summary>
    internal int ValueBytes(in TargetRequest request, in Reply reply) => request.Type switch
    {
        OperationType.Read => reply.Type == ReplyType.Bulk ? (int)reply.Value : 0,
        OperationType.Write => request.Large ? _workload.LargeSize : _workload.ValueSize,
        _ => 0,
    };

    /// <summary>Waits until every request sent so far is answered or has failed; false if that took longer than <paramref name="limit"/>.</summary>
    public bool Drain(TimeSpan limit)
    {
        long end = Stopwatch.GetTimestamp() + (long)(limit.TotalSeconds * Stopwatch.Frequency);
        while (Outstanding > 0 && Broken is null)
        {
            if (Stopwatch.GetTimestamp() > end)
            {
                return false;
            }

            Thread.Sleep(1);
        }

        return Outstanding == 0;
    }

    /// <summary>From now on a request unanswered this long is timed out (<see cref="ClientOptions.FillTimeoutMilliseconds"/> for the fill, then the measured timeout).</summary>
    public void UseTimeout(int milliseconds)
    {
        Volatile.Write(ref _timeoutMilliseconds, milliseconds);
        Interlocked.Exchange(ref _timeoutTicks, (long)(milliseconds / 1000.0 * Stopwatch.Frequency));
    }

    /// <summary>The longest a request can take before it is answered or failed: every attempt's timeout and backoff, and a margin.</summary>
    public TimeSpan DrainLimit()
    {
        double ms = (Volatile.Read(ref _timeoutMilliseconds) * (_options.Retries + 1.0)) + 5000;
        for (int attempt = 1; attempt <= _options.Retries; attempt++)
        {
            ms += ClientOptions.BackoffBefore(attempt);
        }

        return TimeSpan.FromMilliseconds(ms);
    }

    public void ClearRecorders()
    {
        foreach (ThreadRecorder recorder in _recorders)
        {
            recorder.Clear();
        }

        foreach (LongHistogram queue in _queues)
        {
            queue.Reset();
        }

        FailureRecorder.Clear();
    }

    public void ResetCounts()
    {
        Interlocked.Exchange(ref _timeouts, 0);
        Interlocked.Exchange(ref _retried, 0);
        Interlocked.Exchange(ref _failures, 0);
        Interlocked.Exchange(ref _errors, 0);
        Interlocked.Exchange(ref _lateReplies, 0);
        Interlocked.Exchange(ref _poolWaits, 0);
        Interlocked.Exchange(ref _reconnects, 0);
        Interlocked.Exchange(ref _lostInFlight, 0);
    }

    // Called by a connection's reader when a slot frees: wake load threads waiting for one.
    internal void SlotFreed()
    {
        if (Volatile.Read(ref _waiters) > 0)
        {
            lock (_wait)
            {
                Monitor.PulseAll(_wait);
            }
        }
    }

    internal void Finished() => Interlocked.Decrement(ref _outstanding);

    internal void LateReply() => Interlocked.Increment(ref _lateReplies);

    internal void ErrorReply(ReadOnlySpan<byte> text, OperationType type, ReplyType reply)
    {
        if (Interlocked.Increment(ref _errors) == 1)
        {
            // The first error only: a string once per run, not per request.
            string what = text.Length > 0 ? "-" + Encoding.UTF8.GetString(text) : $"a {reply.ToString().ToLowerInvariant()} reply to {Command(type)}";
            Interlocked.CompareExchange(ref _firstError, $"the server answered {Command(type)} with {what}", null);
        }
    }

    internal void ProtocolError(string problem) => Interlocked.CompareExchange(ref _firstError, problem, null);

    internal void ConnectionLost(RespClientConnection connection, string reason)
    {
        Volatile.Write(ref _lastLoss, reason);
        if (Interlocked.Decrement(ref _live) == 0)
        {
            Interlocked.CompareExchange(ref _allLostSince, Stopwatch.GetTimestamp(), 0);
        }

        SlotFreed();
    }

    /// <summary>A request that was in flight on a connection when it was lost: sent again (as a retry) or failed.</summary>
    internal void LostInFlight(in TargetRequest request, long sent, long now)
    {
        Interlocked.Increment(ref _lostInFlight);
        Retry(request, now, avoid: -1, sent, AttemptOutcome.ConnectionLost);
    }

    /// <summary>From <see cref="RespClientConnection.ScanTimeouts"/>: retry after a backoff, or count the request failed.</summary>
    internal void TimedOut(RespClientConnection connection, in TargetRequest request, long sent, long now)
    {
        Interlocked.Increment(ref _timeouts);
        Retry(request, now, connection.Id, sent, AttemptOutcome.TimedOut);
    }

    private void Retry(in TargetRequest request, long now, int avoid, long sent, AttemptOutcome outcome)
    {
        if (request.Traced)
        {
            LoadTestEventSource.Log.AttemptStop(request.Step, request.Attempt, outcome);
        }

        if (request.Attempt < _options.Retries)
        {
            Interlocked.Increment(ref _retried);
            long due = now + (long)(ClientOptions.BackoffBefore(request.Attempt + 1) / 1000.0 * Stopwatch.Frequency);
            TargetRequest next = request with { Attempt = request.Attempt + 1 };
            if (next.Traced)
            {
                // The retry's activity covers its backoff: the time the request spends because it is retried.
                next = next with { Step = LoadTestEventSource.Log.RetryStart(next.Activity, next.Attempt) };
            }

            lock (_retryLock)
            {
                _retries.Enqueue((next, due, avoid));
            }

            _retrySignal.Release();
            return;
        }

        Fail(request, sent, now);
    }

    private void Fail(in TargetRequest request, long sent, long now)
    {
        Interlocked.Increment(ref _failures);
        // A failed request is recorded at the moment it was given up, so it stays in the tail.
        FailureRecorder.Record(OpKind.Failed, (long)((now - request.Arrival) * NanosecondsPerTick), (long)((now - sent) * NanosecondsPerTick));
        if (request.Traced)
        {
            LoadTestEventSource.Log.RequestStop(request.Activity, (int)OpKind.Failed, 0, now);
        }

        Finished();
    }

    private bool Send(in TargetRequest request, int avoid)
    {
        byte[] key = _plan.Keys[request.Key];
        ReadOnlySpan<byte> value = request.Type == OperationType.Write
            ? _plan.Values.AsSpan(0, request.Large ? _workload.LargeSize : _workload.ValueSize)
            : default;
        while (true)
        {
            RespClientConnection? connection = Reserve(request, avoid);
            if (connection is null)
            {
                return false;
            }

            if (connection.Send(request, key, value))
            {
                return true;
            }
        }
    }

    private RespClientConnection? Reserve(in TargetRequest request, int avoid)
    {
        if (TryReserveAny(avoid) is { } free)
        {
            return free;
        }

        Interlocked.Increment(ref _poolWaits);
        if (!request.Traced)
        {
            return WaitForSlot();
        }

        Guid wait = LoadTestEventSource.Log.PoolWaitStart(request.Activity, request.Attempt);
        RespClientConnection? connection = WaitForSlot();
        LoadTestEventSource.Log.PoolWaitStop(wait, connection?.Id ?? -1);
        return connection;
    }

    private RespClientConnection? WaitForSlot()
    {
        lock (_wait)
        {
            Interlocked.Increment(ref _waiters);
            try
            {
                while (true)
                {
                    // Avoiding the connection a retry timed out on is a preference: when no other one
                    // frees a slot (a second connection hung), waiting only for those would never end.
                    if (TryReserveAny(-1) is { } connection)
                    {
                        return connection;
                    }

                    if (Broken is not null || _stop.IsCancellationRequested)
                    {
                        return null;
                    }

                    // Pulsed when a slot frees; the timeout only covers a missed pulse.
                    Monitor.Wait(_wait, 20);
                }
            }
            finally
            {
                Interlocked.Decrement(ref _waiters);
            }
        }
    }

    // Round robin from a moving start, skipping the connection a retry timed out on while another is alive.
    private RespClientConnection? TryReserveAny(int avoid)
    {
        int count = _connections.Length;
        int start = (int)((uint)Interlocked.Increment(ref _next) % (uint)count);
        bool mayUseAvoided = Volatile.Read(ref _live) <= 1;
        for (int i = 0; i < count; i++)
        {
            RespClientConnection connection = Volatile.Read(ref _connections[(start + i) % count]);
            if ((connection.Id != avoid || mayUseAvoided) && connection.TryReserve())
            {
                return connection;
            }
        }

        return null;
    }

    private void MonitorLoop()
    {
        int period = Math.Clamp(_options.TimeoutMilliseconds / 4, 1, 100);
        while (!_stop.Token.WaitHandle.WaitOne(period))
        {
            long now = Stopwatch.GetTimestamp();
            for (int i = 0; i < _connections.Length; i++)
            {
                RespClientConnection connection = _connections[i];
                connection.ScanTimeouts(now, Interlocked.Read(ref _timeoutTicks));
                if (connection.Dead && now >= _reconnectDue[i])
                {
                    Reopen(i, connection, now);
                }
            }

            GiveUpWhenLostTooLong(now);
        }
    }

    /// <summary>
    /// Reopens a lost connection in its slot. Requests still in flight on the old socket will get no
    /// reply: they are sent again now rather than at their timeout. A refused connect waits a doubling
    /// delay (50 ms up to 1 s) before the next try; the monitor thread alone touches the slot's timers.
    /// </summary>
    private void Reopen(int slot, RespClientConnection lost, long now)
    {
        lost.AbandonInFlight(now);
        Socket socket;
        try
        {
            socket = RespControl.Connect(_target, Math.Min(_options.TimeoutMilliseconds, MaxReconnectDelayMilliseconds));
        }
        catch (LoadTestException)
        {
            _reconnectDelay[slot] = Math.Clamp(_reconnectDelay[slot] * 2, FirstReconnectDelayMilliseconds, MaxReconnectDelayMilliseconds);
            _reconnectDue[slot] = Stopwatch.GetTimestamp() + (_reconnectDelay[slot] * Stopwatch.Frequency / 1000);
            return;
        }

        // The old reader must have ended before the new one records into the slot's recorder (one writer).
        lost.Dispose();
        RespClientConnection fresh = NewConnection(slot, socket);
        fresh.StartReading();
        Volatile.Write(ref _connections[slot], fresh);
        _reconnectDelay[slot] = 0;
        Interlocked.Increment(ref _reconnects);
        if (Interlocked.Increment(ref _live) == 1)
        {
            Interlocked.Exchange(ref _allLostSince, 0);
        }

        SlotFreed();
    }

    /// <summary>Broken once no connection has been alive for as long as one request may take (every timeout and backoff).</summary>
    private void GiveUpWhenLostTooLong(long now)
    {
        long since = Interlocked.Read(ref _allLostSince);
        if (since != 0 && !_stop.IsCancellationRequested && now - since > DrainLimit().TotalSeconds * Stopwatch.Frequency)
        {
            Interlocked.CompareExchange(ref _broken,
                $"every connection to the server was lost and none could be reopened for {(now - since) / (double)Stopwatch.Frequency:0.0} s (the last loss: {Volatile.Read(ref _lastLoss)})", null);
            SlotFreed();
        }
    }

    private RespClientConnection NewConnection(int slot, Socket socket) =>
        new(slot, socket, this, _options.Pipeline, _maxCommandBytes, _recorders[slot], _queues[slot]);

    private void RetryLoop()
    {
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                _retrySignal.Wait(_stop.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            (TargetRequest Request, long Due, int Avoid) item;
            lock (_retryLock)
            {
                item = _retries.Dequeue();
            }

            PreciseWait.Until(item.Due);
            if (!Send(item.Request, item.Avoid))
            {
                if (item.Request.Traced)
                {
                    LoadTestEventSource.Log.AttemptStop(item.Request.Step, item.Request.Attempt, AttemptOutcome.NotSent);
                }

                Fail(item.Request, Stopwatch.GetTimestamp(), Stopwatch.GetTimestamp());
            }
        }
    }

    public void Dispose()
    {
        _stop.Cancel();
        SlotFreed();
        // The monitor first: it may be reopening a connection into the array.
        _monitor.Join(TimeSpan.FromSeconds(5));
        foreach (RespClientConnection connection in _connections)
        {
            connection.Dispose();
        }

        _retrier.Join(TimeSpan.FromSeconds(5));
        _stop.Dispose();
        _retrySignal.Dispose();
    }

    private static string Command(OperationType type) => type switch
    {
        OperationType.Read => "GET",
        OperationType.Write => "SET",
        _ => "DEL",
    };
}

/// <summary>What the client went through in one phase.</summary>
/// <param name="PoolWaits">Requests that found every connection's pipeline full and waited for a slot.</param>
/// <param name="Reconnects">Lost connections reopened.</param>
/// <param name="LostInFlight">Requests in flight on a connection when it was lost (each sent again, or failed when out of retries).</param>
public sealed record ClientCounts(long Timeouts, long Retries, long Failures, long ErrorReplies, long LateReplies, long PoolWaits, long Reconnects = 0, long LostInFlight = 0);
