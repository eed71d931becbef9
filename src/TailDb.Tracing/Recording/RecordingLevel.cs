namespace TailDb.Tracing.Recording;

/// <summary>
/// How much of TailDb's own per-request activity a recording holds (--trace-level). Each event
/// costs the traced process a few hundred nanoseconds through EventPipe, so a recording writes the
/// per-request events its reader needs and no more. The runtime's events (GC, suspensions,
/// contention, exceptions, the thread pool) and the store's upkeep are in every level: they are
/// what the analyzer measures the requests' windows against.
/// </summary>
public enum RecordingLevel
{
    /// <summary>
    /// The outermost request only: the load test's Request or the server's Command Start/Stop (two
    /// events a request), plus the store's upkeep (compaction, cache eviction). What `slowest`
    /// needs for its verdict on a load-test or server trace. A process whose requests are the
    /// store's own Get/Put/Delete has none at this level.
    /// </summary>
    Requests,

    /// <summary>
    /// Also the store's Get/Put/Delete nested in each request, and their FileRead and Fsync:
    /// where inside the store a request's time went (`--provider TailDb`, PerfView's activity tree).
    /// </summary>
    Store,
}
