using System.Numerics;
using HdrHistogram;
using TailDb.Server.Commands;

namespace TailDb.Server.Hosting;

/// <summary>Counters INFO reports. Updated with Interlocked; read without locks (INFO is a snapshot, not a transaction).</summary>
public sealed class ServerStats
{
    /// <summary>30 minutes in ns, as the load test's histograms (HdrHistogram.NET 2.5.0 misreads values past 2^41 ns).</summary>
    private const long HighestTrackableNanoseconds = 1_800_000_000_000;

    // Hits and misses of one stripe sit this many longs (128 bytes) after the previous stripe's: no shared cache line.
    private const int KeyspaceSpacing = 16;

    // The per-command counters are striped, and a connection records into stripe (id % count): the
    // atomics every command pays (a histogram record is three, its sum one, a hit one) then stay on
    // the cache lines of the core running that connection instead of bouncing between cores. In
    // process, two threads doing cache-hit GETs kept 0.94x of the store's rate with striped
    // counters against 0.86x with shared ones (docs/server.md). INFO sums the stripes.
    private static readonly int StripeCount = (int)Math.Max(4, BitOperations.RoundUpToPowerOf2((uint)Environment.ProcessorCount * 2));

    private readonly Stripe[] _stripes = Enumerable.Range(0, StripeCount).Select(_ => new Stripe()).ToArray();
    private readonly long[] _keyspace = new long[StripeCount * KeyspaceSpacing];
    private readonly LongHistogram?[] _merged = new LongHistogram?[CommandTable.Count];

    internal long ConnectionsReceived;
    internal long ConnectedClients;
    internal long ConnectionsRejected;
    internal long ProtocolErrors;
    internal long IdleClosed;

    public long KeyspaceHits => SumKeyspace(0);

    public long KeyspaceMisses => SumKeyspace(1);

    public long CommandsProcessed => _stripes.Sum(s => s.TotalCount);

    /// <summary>
    /// <paramref name="count"/> commands of one kind with the same latency from the moment their bytes
    /// were read (a run of one read's pipeline): one histogram record for all of them. Out-of-range
    /// values are clamped, never thrown.
    /// </summary>
    public void RecordLatency(long connectionId, CommandKind kind, long nanoseconds, int count) =>
        _stripes[connectionId & (StripeCount - 1)].Record(kind, nanoseconds, count);

    /// <summary>A connection's hits and misses since it last reported (one read's GETs): one atomic add each, none when zero.</summary>
    public void AddKeyspace(long connectionId, long hits, long misses)
    {
        long stripe = (connectionId & (StripeCount - 1)) * KeyspaceSpacing;
        if (hits != 0)
        {
            Interlocked.Add(ref _keyspace[stripe], hits);
        }

        if (misses != 0)
        {
            Interlocked.Add(ref _keyspace[stripe + 1], misses);
        }
    }

    public long SumNanoseconds(CommandKind kind) => _stripes.Sum(s => Interlocked.Read(ref s.Sums[(int)kind]));

    /// <summary>
    /// Calls <paramref name="action"/> for each command kind that has run, with its latencies
    /// merged over the stripes and their exact sum. The merged histograms (about 250 KB each) are
    /// kept and reused, so INFO does not allocate them per call; hence the lock.
    /// </summary>
    public void ForEachLatency(Action<CommandKind, HistogramBase, long> action)
    {
        lock (_merged)
        {
            foreach (CommandKind kind in Enum.GetValues<CommandKind>())
            {
                LongHistogram? merged = null;
                foreach (Stripe stripe in _stripes)
                {
                    if (stripe.Histogram(kind) is { TotalCount: > 0 } h)
                    {
                        merged ??= Reset(kind);
                        merged.Add(h);
                    }
                }

                if (merged is not null)
                {
                    action(kind, merged, SumNanoseconds(kind));
                }
            }
        }
    }

    private LongHistogram Reset(CommandKind kind)
    {
        LongHistogram merged = _merged[(int)kind] ??= new LongHistogram(1, HighestTrackableNanoseconds, 3);
        merged.Reset();
        return merged;
    }

    private long SumKeyspace(int offset)
    {
        long sum = 0;
        for (int i = 0; i < StripeCount; i++)
        {
            sum += Interlocked.Read(ref _keyspace[(i * KeyspaceSpacing) + offset]);
        }

        return sum;
    }

    private sealed class Stripe
    {
        // HdrHistogram's concurrent histogram: lock-free and allocation-free recording, 3
        // significant digits. Made on a command kind's first record in this stripe.
        private readonly LongConcurrentHistogram?[] _latency = new LongConcurrentHistogram?[CommandTable.Count];

        // Exact sums for cmdstat's usec (a histogram's mean is rounded to its buckets).
        public readonly long[] Sums = new long[CommandTable.Count];

        public long TotalCount => _latency.Sum(h => h?.TotalCount ?? 0);

        public LongConcurrentHistogram? Histogram(CommandKind kind) => Volatile.Read(ref _latency[(int)kind]);

        public void Record(CommandKind kind, long nanoseconds, int count)
        {
            LongConcurrentHistogram h = Histogram(kind) ?? Create(kind);
            h.RecordValueWithCount(Math.Clamp(nanoseconds, 1, HighestTrackableNanoseconds), count);
            Interlocked.Add(ref Sums[(int)kind], nanoseconds * count);
        }

        private LongConcurrentHistogram Create(CommandKind kind)
        {
            var made = new LongConcurrentHistogram(1, HighestTrackableNanoseconds, 3);
            return Interlocked.CompareExchange(ref _latency[(int)kind], made, null) ?? made;
        }
    }
}
