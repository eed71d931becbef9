namespace TailDb.LoadTest.Measurement;

/// <summary>
/// One worker thread's histograms: per op kind, measured from the intended start (corrected for
/// coordinated omission) and from the actual start (uncorrected). Allocated before the measured
/// phase so recording allocates nothing.
/// </summary>
public sealed class ThreadRecorder
{
    private readonly LatencyHistogram[] _corrected = new LatencyHistogram[OpKinds.Count];
    private readonly LatencyHistogram[] _uncorrected = new LatencyHistogram[OpKinds.Count];

    public ThreadRecorder()
    {
        for (int i = 0; i < OpKinds.Count; i++)
        {
            _corrected[i] = new LatencyHistogram();
            _uncorrected[i] = new LatencyHistogram();
        }
    }

    private long _operations;

    /// <summary>Requests recorded so far; read by the progress line from another thread.</summary>
    public long Operations => Volatile.Read(ref _operations);

    public void Record(OpKind kind, long correctedNanoseconds, long uncorrectedNanoseconds)
    {
        _corrected[(int)kind].Record(correctedNanoseconds);
        _uncorrected[(int)kind].Record(uncorrectedNanoseconds);
        Volatile.Write(ref _operations, _operations + 1);
    }

    public LatencyHistogram Corrected(OpKind kind) => _corrected[(int)kind];

    public LatencyHistogram Uncorrected(OpKind kind) => _uncorrected[(int)kind];

    public void Clear()
    {
        for (int i = 0; i < OpKinds.Count; i++)
        {
            _corrected[i].Clear();
            _uncorrected[i].Clear();
        }

        Volatile.Write(ref _operations, 0);
    }
}
