using TailDb.Server.Diagnostics;

namespace TailDb.Server.Commands;

/// <summary>
/// The plain SETs (SET key value) that follow one another in one read, held back and written with
/// one <see cref="TailDbStore.PutBatchAsync"/>: one writer-lock hold and one write syscall for a
/// pipeline's SETs instead of one each. Their replies go out in order, each after the whole batch
/// is durable (so with Fsync a pipeline of SETs waits for one group commit, not one per SET).
/// Keys and values are slices of the connection's read buffer, so the batch must be run before
/// that buffer is advanced, and before any other command of the connection runs.
/// </summary>
public sealed class SetBatch
{
    /// <summary>Enough for a deep pipeline; a longer one is written in several batches.</summary>
    public const int Capacity = 64;

    /// <summary>A batch of large values is written once it holds this many bytes: the store encodes a batch into one pooled buffer.</summary>
    public const int MaxBytes = 1 << 20;

    private readonly BatchPut[] _puts = new BatchPut[Capacity];
    private readonly PutStatus[] _statuses = new PutStatus[Capacity];

    // Each SET's Command activity while the server's Command events are on (else empty ids).
    private readonly Guid[] _activities = new Guid[Capacity];
    private bool _traced;
    private long _arrival;
    private int _bytes;

    public int Count { get; private set; }

    public bool IsFull => Count == Capacity || _bytes >= MaxBytes;

    /// <summary>
    /// Whether the command just parsed can join the batch: a plain SET of a valid key. Traced or
    /// not: with the server's Command events on, each SET is still its own Command activity, and
    /// its Put nests in it (<see cref="TailDbStore.PutBatchAsync(ReadOnlySpan{BatchPut}, Span{PutStatus}, ReadOnlySpan{Guid}, CancellationToken)"/>).
    /// Before 2026-11-27 a traced server wrote each SET alone: redis-benchmark SET -P 16 then ran at
    /// 0.25x its untraced rate (94.6k against 373k req/s, requests level), one lock hold and one
    /// write syscall a SET (docs/server.md, "Traced SETs in a batch").
    /// </summary>
    public static bool Accepts(CommandContext c) =>
        c.Authenticated && c.Request.Count == 3 && CommandTable.Lookup(c.Request.Span(0)) == CommandKind.Set &&
        c.Request.Span(1).Length is > 0 and <= 64 << 10;

    /// <summary>
    /// Adds the parsed SET; every SET of one batch carries the arrival of the first (commands of one
    /// read share it). With <paramref name="events"/> its CommandStart is written now, as the
    /// dispatcher writes an unbatched command's, and its CommandStop after its reply.
    /// </summary>
    public void Add(CommandContext c, long arrivalTimestamp, bool events)
    {
        if (Count == 0)
        {
            _arrival = arrivalTimestamp;
        }

        if (events)
        {
            _activities[Count] = CommandDispatcher.BeginCommandEvent(c, CommandKind.Set, arrivalTimestamp, out Guid previous);

            // The thread's activity is not this SET's while the batch fills: the parse of the next one is no part of it.
            ServerEventSource.Leave(previous);
            _traced = true;
        }

        _puts[Count++] = new BatchPut(c.Request[1], c.Request[2]);
        _bytes += c.Request[1].Length + c.Request[2].Length;
    }

    /// <summary>Writes the batch, then each SET's reply in order and its latency into INFO.</summary>
    public ValueTask Run(CommandContext c)
    {
        if (Count == 0)
        {
            return default;
        }

        ValueTask durable = c.Store.PutBatchAsync(_puts.AsSpan(0, Count), _statuses, _traced ? _activities.AsSpan(0, Count) : default);
        if (durable.IsCompletedSuccessfully)
        {
            durable.GetAwaiter().GetResult();
            Reply(c, durable: true);
            return default;
        }

        return RunAsync(c, durable);
    }

    private async ValueTask RunAsync(CommandContext c, ValueTask durable)
    {
        bool ok = true;
        try
        {
            await durable.ConfigureAwait(false);
        }
        catch (TailDbFaultedException)
        {
            ok = false;
        }

        Reply(c, ok);
    }

    /// <param name="durable">False when the group commit failed: then no written SET is acknowledged.</param>
    private void Reply(CommandContext c, bool durable)
    {
        long nanoseconds = (long)System.Diagnostics.Stopwatch.GetElapsedTime(_arrival).Ticks * 100;
        bool traced = _traced;
        for (int i = 0; i < Count; i++)
        {
            // What the CommandStop reports (reply bytes, whether it was an error); read only when traced.
            long replyStart = traced ? c.Output.UnflushedBytes : 0;
            long errors = traced ? c.Errors : 0;
            switch (_statuses[i])
            {
                case PutStatus.Written when durable:
                    c.Raw(StoreWrites.OkReply);
                    break;
                case PutStatus.Invalid:
                    StoreWrites.ValueTooLarge(c);
                    break;
                default:
                    StoreWrites.Faulted(c, c.Store.FaultMessage);
                    break;
            }

            _puts[i] = default;
            if (traced && _activities[i] != Guid.Empty)
            {
                CommandDispatcher.EndCommandEvent(c, CommandKind.Set, _activities[i], replyStart, errors);
                _activities[i] = Guid.Empty;
            }
        }

        c.Server.Stats.RecordLatency(c.ConnectionId, CommandKind.Set, nanoseconds, Count);

        Count = 0;
        _bytes = 0;
        _traced = false;
    }
}
