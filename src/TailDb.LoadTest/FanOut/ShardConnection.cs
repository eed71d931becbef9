using System.Diagnostics;
using System.Net.Sockets;
using HdrHistogram;
using TailDb.LoadTest.Diagnostics;
using TailDb.LoadTest.Measurement;
using TailDb.LoadTest.Target;
using TailDb.Tracing;

namespace TailDb.LoadTest.FanOut;

/// <summary>
/// One load thread's connection for one shard's Gets (to the shard itself, or to twemproxy), one
/// command in flight. The reply is read by a receive posted before the send, completed on the
/// socket engine's thread: each Get's reply is stamped when it arrives, not when the load thread
/// gets round to it, so a shard that answered early is not charged for one that answered late.
/// </summary>
internal sealed class ShardConnection : IDisposable
{
    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private readonly Socket _socket;
    private readonly SocketAsyncEventArgs _receive = new();
    private readonly byte[] _in = new byte[16 * 1024];
    private readonly byte[] _out;
    private readonly RespReplyReader _reader = new();
    private readonly FanOutWait _owner;
    private readonly int _shard;
    private int _filled;
    private Guid _attempt;
    private long _sentAt;

    public ShardConnection(TargetAddress address, int shard, int maxCommandBytes, FanOutWait owner, int timeoutMilliseconds)
    {
        _shard = shard;
        _owner = owner;
        _out = new byte[maxCommandBytes];
        _socket = RespControl.Connect(address, timeoutMilliseconds);
        _receive.SetBuffer(_in, 0, _in.Length);
        _receive.Completed += (_, e) => OnReceived(e);
    }

    /// <summary>Send → reply of every Get on this connection, in nanoseconds (recorded on the receiving thread, read after the phase).</summary>
    public LongHistogram Gets { get; } = LatencyHistograms.Create();

    /// <summary>When the last reply's last byte was read (Stopwatch ticks).</summary>
    public long ReplyAt { get; private set; }

    /// <summary>What the last reply was.</summary>
    public ReplyType LastReply { get; private set; }

    /// <summary>Whether to record the next replies into <see cref="Gets"/> (not during the fill).</summary>
    public bool Recording { get; set; }

    /// <summary>
    /// Sends the <paramref name="length"/> bytes written into <see cref="Output"/>; when traced
    /// (<paramref name="request"/> not empty), as an Attempt nested in that Request, the shard in its
    /// connection field, stopped when the reply is in.
    /// </summary>
    public void Send(Guid request, int length)
    {
        _filled = 0;
        // The receive is posted first: a reply that comes back at once still lands in a posted receive.
        if (!_socket.ReceiveAsync(_receive))
        {
            OnReceived(_receive);
        }

        _attempt = request == Guid.Empty ? Guid.Empty : LoadTestEventSource.Log.AttemptStart(request, _shard);
        _sentAt = Stopwatch.GetTimestamp();

        int sent = 0;
        while (sent < length)
        {
            sent += _socket.Send(_out, sent, length - sent, SocketFlags.None);
        }
    }

    /// <summary>The send buffer, for <see cref="RespCommands"/> to write into.</summary>
    public Span<byte> Output => _out;

    private void OnReceived(SocketAsyncEventArgs e)
    {
        while (true)
        {
            if (e.SocketError != SocketError.Success || e.BytesTransferred == 0)
            {
                _owner.Fail($"shard {_shard}: the connection was lost ({(e.BytesTransferred == 0 && e.SocketError == SocketError.Success ? "closed by the peer" : e.SocketError.ToString())})");
                return;
            }

            _filled += e.BytesTransferred;
            int offset = 0;
            if (_reader.TryRead(_in.AsSpan(0, _filled), ref offset, out Reply reply))
            {
                long now = Stopwatch.GetTimestamp();
                ReplyAt = now;
                LastReply = reply.Type;
                if (Recording)
                {
                    Gets.RecordClamped((long)((now - _sentAt) * NanosecondsPerTick));
                }

                if (_attempt != Guid.Empty)
                {
                    LoadTestEventSource.Log.AttemptStop(_attempt, 0, AttemptOutcome.Answered);
                }

                _owner.Arrived(reply.Type == ReplyType.Error);
                return;
            }

            if (_reader.Problem is { } problem)
            {
                _owner.Fail($"shard {_shard}: {problem}");
                return;
            }

            // A partial reply: the reader consumed what it could (a bulk string's bytes are skipped where they lie).
            _in.AsSpan(offset, _filled - offset).CopyTo(_in);
            _filled -= offset;
            e.SetBuffer(_filled, _in.Length - _filled);
            if (_socket.ReceiveAsync(e))
            {
                return;
            }
        }
    }

    public void Dispose()
    {
        _socket.Dispose();
        _receive.Dispose();
    }
}

/// <summary>A load thread's wait for its request's N replies: a countdown and an event, reused for every request.</summary>
internal sealed class FanOutWait : IDisposable
{
    private readonly ManualResetEventSlim _done = new();
    private int _pending;
    private int _errors;
    private string? _failure;

    public string? Failure => Volatile.Read(ref _failure);

    public void Begin(int replies)
    {
        _done.Reset();
        Volatile.Write(ref _errors, 0);
        Volatile.Write(ref _pending, replies);
    }

    public void Arrived(bool error)
    {
        if (error)
        {
            Interlocked.Increment(ref _errors);
        }

        if (Interlocked.Decrement(ref _pending) == 0)
        {
            _done.Set();
        }
    }

    public void Fail(string why)
    {
        Interlocked.CompareExchange(ref _failure, why, null);
        _done.Set();
    }

    /// <summary>False when the replies did not all come within the timeout, or a connection failed.</summary>
    public bool Wait(int timeoutMilliseconds, out int errors)
    {
        bool done = _done.Wait(timeoutMilliseconds) && Failure is null;
        errors = Volatile.Read(ref _errors);
        return done;
    }

    public void Dispose() => _done.Dispose();
}
