using TailDb.LoadTest.Reporting;

namespace TailDb.LoadTest.Workloads;

/// <summary>
/// Compacts the store every interval on a thread of its own (`--compact-every`), as an operator's
/// schedule would: compaction is upkeep the requests must not pay for, and this is how the load
/// test shows whether they do. Stops (waiting for a compaction in progress) when disposed, and
/// sums up what the compactions did (<see cref="Summary"/>), so a run shows how long the copy
/// took, how much of it was pacing, at what priority it ran and the longest writer-lock hold.
/// </summary>
internal sealed class PeriodicCompaction : IDisposable
{
    private readonly TailDbStore _store;
    private readonly TimeSpan _interval;
    private readonly ManualResetEventSlim _stop = new();
    private readonly Thread _thread;
    private readonly List<CompactionResult> _results = [];
    private bool _disposed;

    public PeriodicCompaction(TailDbStore store, TimeSpan interval)
    {
        _store = store;
        _interval = interval;
        _thread = new Thread(Run) { IsBackground = true, Name = "TailDb compaction" };
        _thread.Start();
    }

    /// <summary>What the compactions that did work did (call after <see cref="Dispose"/>).</summary>
    public CompactionSummary Summary()
    {
        List<CompactionResult> worked = _results.Where(r => r.SegmentsCompacted > 0).ToList();
        return new CompactionSummary(
            worked.Count,
            worked.Sum(r => r.BytesBefore),
            worked.Sum(r => r.Copying.TotalMilliseconds),
            worked.Sum(r => r.Throttled.TotalMilliseconds),
            worked.Count == 0 ? 0 : worked.Max(r => r.LongestWriterLockHold.TotalMilliseconds),
            worked.Count == 0 ? 0 : worked.Max(r => r.SealWriterLockHold.TotalMilliseconds),
            worked.Select(r => r.Priority).Distinct().Select(p => p.ToString().ToLowerInvariant()).ToList());
    }

    private void Run()
    {
        while (!_stop.Wait(_interval))
        {
            CompactionResult result = _store.Compact();
            lock (_results)
            {
                _results.Add(result);
            }
        }
    }

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _stop.Set();
        _thread.Join();
        _stop.Dispose();
    }
}
