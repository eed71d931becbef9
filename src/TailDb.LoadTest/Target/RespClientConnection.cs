using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using HdrHistogram;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Workloads;
using TailDb.Tracing;

namespace TailDb.LoadTest.Target;

/// <summary>One request on its way: the schedule's arrival, what to send, which attempt this is.</summary>
/// <param name="Activity">The request's activity id when it is traced (<see cref="LoadTestEventSource"/>), else empty.</param>
/// <param name="Step">The id of its current Attempt or Retry activity (traced requests only).</param>
internal readonly record struct TargetRequest(long Arrival, int Key, OperationType Type, bool Large, int Attempt, Guid Activity = default, Guid Step = default)
{
    public bool Traced => Activity != Guid.Empty;
}

/// <summary>
/// One pooled connection: a blocking socket, a send buffer and a ring of the requests in flight,
/// in the order they were sent (RESP answers in order). Load threads send under a lock; a reader
/// thread of its own receives, matches each reply to the oldest request and records its latency
/// into this connection's recorder, so recording needs no synchronization and nothing allocates.
/// </summary>
internal sealed class RespClientConnection : IDisposable
{
    private const int Pending = 0;
    private const int Answered = 1;
    private const int Abandoned = 2;
    private const int ReceiveBufferBytes = 64 * 1024;

    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private readonly Socket _socket;
    private readonly ConnectionPool _pool;
    private readonly Slot[] _ring;
    private readonly int _mask;
    private readonly int _capacity;
    private readonly byte[] _send;
    private readonly Lock _sendLock = new();
    private readonly Thread _reader;
    private long _head;
    private long _tail;
    private int _reserved;
    private int _lost;
    private volatile bool _dead;

    public RespClientConnection(int id, Socket socket, ConnectionPool pool, int pipeline, int maxCommandBytes, ThreadRecorder recorder, LongHistogram queue)
    {
        Id = id;
        Recorder = recorder;
        Queue = queue;
        _socket = socket;
        _pool = pool;
        _capacity = pipeline;
        _ring = new Slot[(int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)pipeline)];
        _mask = _ring.Length - 1;
        _send = new byte[maxCommandBytes];
        _reader = new Thread(ReceiveLoop) { IsBackground = true, Name = $"resp-reader-{id}", Priority = ThreadPriority.AboveNormal };
    }

    public int Id { get; }

    public bool Dead => _dead;

    /// <summary>Latency of the requests this connection answered: from the intended start (corrected) and from the answered attempt's send.
    /// Its pool slot's: a connection reopened in the slot records into the same one, after this one's reader has ended.</summary>
    public ThreadRecorder Recorder { get; }

    /// <summary>Per answered request: intended start to the send of the attempt that was answered (pool waits, backlog, retries).</summary>
    public LongHistogram Queue { get; }

    public void StartReading() => _reader.Start();

    /// <summary>Claims a slot for one request; false when <see cref="ClientOptions.Pipeline"/> are already in flight.</summary>
    public bool TryReserve()
    {
        if (_dead)
        {
            return false;
        }

        if (Interlocked.Increment(ref _reserved) <= _capacity)
        {
            return true;
        }

        Interlocked.Decrement(ref _reserved);
        return false;
    }

    /// <summary>Gives back a reservation that was not used.</summary>
    public void Unreserve() => Interlocked.Decrement(ref _reserved);

    /// <summary>
    /// Sends a request on a reserved slot. A failed send marks the connection dead and leaves the
    /// request in flight, so it times out and is retried like any other unanswered request.
    /// </summary>
    public bool Send(in TargetRequest request, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        lock (_sendLock)
        {
            if (_dead)
            {
                Unreserve();
                return false;
            }

            int length = request.Type switch
            {
                OperationType.Read => RespCommands.WriteGet(_send, key),
                OperationType.Write => RespCommands.WriteSet(_send, key, value),
                _ => RespCommands.WriteDel(_send, key),
            };
            long tail = _tail;
            ref Slot slot = ref _ring[tail & _mask];
            // A traced first send starts its Attempt here, once the connection is known; a retry's
            // Retry activity began when the attempt before it was given up.
            slot.Request = request.Traced && request.Attempt == 0
                ? request with { Step = LoadTestEventSource.Log.AttemptStart(request.Activity, Id) }
                : request;
            slot.Sent = Stopwatch.GetTimestamp();
            slot.State = Pending;
            Volatile.Write(ref _tail, tail + 1);
            try
            {
                for (int sent = 0; sent < length;)
                {
                    sent += _socket.Send(_send.AsSpan(sent, length - sent), SocketFlags.None);
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                MarkDead($"send failed: {e.Message}");
                return true;
            }

            if (LoadTestEventSource.Log.RequestsEnabled())
            {
                LoadTestEventSource.Log.RequestSent(request.Arrival, Id);
            }

            return true;
        }
    }

    /// <summary>Abandons every request in flight here for longer than the timeout; the pool retries or fails each.</summary>
    public void ScanTimeouts(long now, long timeoutTicks)
    {
        lock (_sendLock)
        {
            for (long i = Volatile.Read(ref _head); i < _tail; i++)
            {
                ref Slot slot = ref _ring[i & _mask];
                if (Volatile.Read(ref slot.State) == Pending && now - slot.Sent > timeoutTicks
                    && Interlocked.CompareExchange(ref slot.State, Abandoned, Pending) == Pending)
                {
                    _pool.TimedOut(this, slot.Request, slot.Sent, now);
                }
            }
        }
    }

    /// <summary>Hands every request still in flight on this (lost) connection back to the pool, once each.</summary>
    public void AbandonInFlight(long now)
    {
        lock (_sendLock)
        {
            for (long i = Volatile.Read(ref _head); i < _tail; i++)
            {
                ref Slot slot = ref _ring[i & _mask];
                if (Interlocked.CompareExchange(ref slot.State, Abandoned, Pending) == Pending)
                {
                    _pool.LostInFlight(slot.Request, slot.Sent, now);
                }
            }
        }
    }

    public void MarkDead(string reason)
    {
        // A failed send and the reader can both see the end: the pool hears of it once.
        if (Interlocked.Exchange(ref _lost, 1) == 1)
        {
            return;
        }

        _dead = true;
        _pool.ConnectionLost(this, reason);
        try
        {
            _socket.Shutdown(SocketShutdown.Both);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // Already gone: that is what we wanted.
        }
    }

    public void Dispose()
    {
        Interlocked.Exchange(ref _lost, 1);
        _dead = true;
        _socket.Dispose();
        if (_reader.IsAlive)
        {
            _reader.Join(TimeSpan.FromSeconds(5));
        }
    }

    // Dedicated thread, optimized from the start: it runs for the whole session (see WorkloadRunner).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void ReceiveLoop()
    {
        var buffer = new byte[ReceiveBufferBytes];
        var reader = new RespReplyReader();
        int filled = 0;
        try
        {
            while (!_dead)
            {
                int received = _socket.Receive(buffer.AsSpan(filled), SocketFlags.None);
                if (received == 0)
                {
                    MarkDead("the server closed the connection");
                    return;
                }

                long now = Stopwatch.GetTimestamp();
                filled += received;
                int offset = 0;
                while (reader.TryRead(buffer.AsSpan(0, filled), ref offset, out Reply reply))
                {
                    if (!Complete(reply, buffer, now))
                    {
                        return;
                    }
                }

                if (reader.Problem is { } problem)
                {
                    _pool.ProtocolError(problem);
                    MarkDead(problem);
                    return;
                }

                buffer.AsSpan(offset, filled - offset).CopyTo(buffer);
                filled -= offset;
                if (filled == buffer.Length)
                {
                    _pool.ProtocolError($"protocol error: a reply line longer than {buffer.Length} bytes");
                    MarkDead("reply line too long");
                    return;
                }
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            MarkDead($"receive failed: {e.Message}");
        }
    }

    private bool Complete(in Reply reply, byte[] buffer, long now)
    {
        long head = _head;
        if (head == Volatile.Read(ref _tail))
        {
            _pool.ProtocolError("protocol error: a reply to no request");
            MarkDead("a reply to no request");
            return false;
        }

        ref Slot slot = ref _ring[head & _mask];
        if (Interlocked.CompareExchange(ref slot.State, Answered, Pending) == Pending)
        {
            TargetRequest request = slot.Request;
            OpKind kind = Classify(request.Type, reply);
            if (kind == OpKind.Failed)
            {
                _pool.ErrorReply(reply.Type == ReplyType.Error ? buffer.AsSpan(reply.TextStart, reply.TextLength) : default, request.Type, reply.Type);
            }

            Recorder.Record(kind, (long)((now - request.Arrival) * NanosecondsPerTick), (long)((now - slot.Sent) * NanosecondsPerTick));
            Queue.RecordClamped((long)((slot.Sent - request.Arrival) * NanosecondsPerTick));
            if (LoadTestEventSource.Log.RequestsEnabled())
            {
                LoadTestEventSource.Log.ReplyReceived(request.Arrival, Id, (int)kind);
            }

            if (request.Traced)
            {
                LoadTestEventSource.Log.AttemptStop(request.Step, request.Attempt, AttemptOutcome.Answered);
                LoadTestEventSource.Log.RequestStop(request.Activity, (int)kind, _pool.ValueBytes(request, reply), now);
            }

            _pool.Finished();
        }
        else
        {
            _pool.LateReply();
        }

        Volatile.Write(ref _head, head + 1);
        Interlocked.Decrement(ref _reserved);
        _pool.SlotFreed();
        return true;
    }

    private static OpKind Classify(OperationType type, in Reply reply) => (type, reply.Type) switch
    {
        (OperationType.Read, ReplyType.Bulk) => OpKind.GetFoundRemote,
        (OperationType.Read, ReplyType.Nil) => OpKind.GetNotFound,
        (OperationType.Write, ReplyType.Status) => OpKind.Put,
        (OperationType.Delete, ReplyType.Integer) => OpKind.Delete,
        _ => OpKind.Failed,
    };

    private struct Slot
    {
        public TargetRequest Request;
        public long Sent;
        public int State;
    }
}
