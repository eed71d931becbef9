namespace TailDb;

/// <summary>
/// Where the store's upkeep runs. <see cref="Background"/> is the store; <see cref="OnRequest"/>
/// reproduces the first design (eviction on whichever request took the cache over its bound,
/// compaction repointing every key in one hold of the writer lock, a segment rotation fsyncing the
/// sealed segment and creating the next file under that lock) so that the load test can show,
/// in one run on one binary, what moving upkeep off requests bought (docs/store.md). Never a
/// production setting: it is internal, reached by the load test's `--upkeep on-request`.
/// </summary>
internal enum UpkeepMode
{
    /// <summary>
    /// A thread-pool evictor woken by a watermark; compaction repoints in batches of
    /// <see cref="Storage.Compactor.RepointBatch"/>; a rotation swaps to a segment file made ahead
    /// of need and leaves the seal's fsync to after the lock (<see cref="Storage.SegmentWriter"/>).
    /// </summary>
    Background,

    /// <summary>The request that crosses the bound runs the eviction pass; compaction repoints all keys in one lock hold; rotations do all their I/O under the writer lock.</summary>
    OnRequest,
}
