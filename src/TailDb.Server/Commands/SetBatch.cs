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
    private long _arrival;
    private int _bytes;

    public int Count { get; private set; }

    public bool IsFull => Count == Capacity || _bytes >= MaxBytes;

    /// <summary>
    /// Whether the command just parsed can join the batch: a plain SET of a valid key, with the
    /// server's Command events off (each command is then its own activity, as traced runs expect).
    /// </summary>
    public static bool Accepts(CommandContext c, bool events) =>
        !events && c.Authenticated && c.Request.Count == 3 && CommandTable.Lookup(c.Request.Span(0)) == CommandKind.Set &&
        c.Request.Span(1).Length is > 0 and <= 64 << 10;

    /// <summary>Adds the parsed SET; every SET of one batch carries the arrival of the first (commands of one read share it).</summary>
    public void Add(CommandContext c, long arrivalTimestamp)
    {
        if (Count == 0)
        {
            _arrival = arrivalTimestamp;
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

        ValueTask durable = c.Store.PutBatchAsync(_puts.AsSpan(0, Count), _statuses);
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
        for (int i = 0; i < Count; i++)
        {
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
        }

        c.Server.Stats.RecordLatency(c.ConnectionId, CommandKind.Set, nanoseconds, Count);

        Count = 0;
        _bytes = 0;
    }
}
