using System.IO.Pipelines;
using TailDb.Server.Hosting;
using TailDb.Server.Protocol;

namespace TailDb.Server.Commands;

/// <summary>One connection's state as commands see it; reused for every command of the connection.</summary>
public sealed class CommandContext(ServerState server, PipeWriter output, long connectionId)
{
    public ServerState Server { get; } = server;

    public TailDbStore Store => Server.Store;

    public PipeWriter Output { get; } = output;

    public RespRequest Request { get; } = new();

    public BulkReplyWriter Bulk { get; } = new();

    public long ConnectionId { get; } = connectionId;

    /// <summary>From CLIENT SETNAME; "" until set (the event payload then costs nothing).</summary>
    public string ClientName { get; set; } = "";

    public bool Authenticated { get; set; }

    /// <summary>Set by QUIT and SHUTDOWN: the connection closes once this reply is flushed.</summary>
    public bool CloseAfterReply { get; set; }

    private CommandKind _runKind;
    private long _runArrival;
    private int _runCount;

    /// <summary>Error replies written on this connection (the Stop event's error flag compares it before and after).</summary>
    public long Errors { get; private set; }

    /// <summary>Keyspace hits and misses of GET and MGET not yet added to INFO's counters (<see cref="RecordPending"/>).</summary>
    public long Hits { get; set; }

    /// <inheritdoc cref="Hits"/>
    public long Misses { get; set; }

    /// <summary>
    /// Counts a completed command toward INFO's latencies. Consecutive commands of one kind from
    /// one read form a run, recorded once (one clock read, one histogram record) with the latency
    /// of the run's last command, when a command of another kind starts or the read's replies are
    /// flushed (<see cref="RecordPending"/>): their replies leave together at that flush, so
    /// that is the latency each of them sees. A pipeline of 16 GETs paid 16 of each before, and
    /// 16 atomic increments of the hit counter.
    /// </summary>
    public void CountCompleted(CommandKind kind, long arrivalTimestamp)
    {
        if (_runCount > 0 && (kind != _runKind || arrivalTimestamp != _runArrival))
        {
            RecordPending();
        }

        _runKind = kind;
        _runArrival = arrivalTimestamp;
        _runCount++;
    }

    /// <summary>Records the pending run and hit counts, if any: before a command of another kind runs (INFO sees the commands before it) and before replies are flushed.</summary>
    public void RecordPending()
    {
        if (_runCount > 0)
        {
            long nanoseconds = (long)System.Diagnostics.Stopwatch.GetElapsedTime(_runArrival).Ticks * 100;
            Server.Stats.RecordLatency(ConnectionId, _runKind, nanoseconds, _runCount);
            _runCount = 0;
        }

        if ((Hits | Misses) != 0)
        {
            Server.Stats.AddKeyspace(ConnectionId, Hits, Misses);
            Hits = 0;
            Misses = 0;
        }
    }

    /// <summary>Whether a run of another kind is pending (then it is recorded before this command runs).</summary>
    public bool HasPendingRunOtherThan(CommandKind kind) => _runCount > 0 && _runKind != kind;

    public void Error(string message)
    {
        Errors++;
        RespWriter.WriteError(Output, message);
    }

    public void Raw(ReadOnlySpan<byte> bytes) => RespWriter.WriteRaw(Output, bytes);

    public void WrongArity(CommandKind kind) => Error($"ERR wrong number of arguments for '{CommandTable.Names[(int)kind]}' command");

    /// <summary>Keys the store accepts (1 byte .. 64 KiB); otherwise an error reply and false.</summary>
    public bool CheckKey(ReadOnlySpan<byte> key)
    {
        if (key.IsEmpty)
        {
            Error("ERR TailDb keys must not be empty");
            return false;
        }

        if (key.Length > 64 << 10)
        {
            Error("ERR key longer than 65536 bytes");
            return false;
        }

        return true;
    }

    /// <summary>
    /// Values the store accepts (up to its MaxValueBytes); otherwise the error reply and false. Checked
    /// before a Put, which would throw: a client's oversized value must not end its connection.
    /// </summary>
    public bool CheckValue(ReadOnlySpan<byte> value)
    {
        if (value.Length > Server.Options.MaxValueBytes)
        {
            StoreWrites.ValueTooLarge(this);
            return false;
        }

        return true;
    }
}
