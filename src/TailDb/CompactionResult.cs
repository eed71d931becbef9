namespace TailDb;

/// <summary>What one <see cref="TailDbStore.Compact"/> did.</summary>
public sealed record CompactionResult(int SegmentsCompacted, long LiveRecords, long BytesBefore, long BytesAfter)
{
    public long BytesReclaimed => BytesBefore - BytesAfter;

    /// <summary>
    /// The longest single hold of the writer lock while publishing the result (adding the output,
    /// one batch of repointed keys, removing the inputs); writers wait at most this long for compaction.
    /// Sealing the active segment first takes the lock like any segment rotation.
    /// </summary>
    public TimeSpan LongestWriterLockHold { get; init; }

    /// <summary>
    /// The writer-lock hold that sealed the active segment so compaction could take it: a segment
    /// rotation, which with Background upkeep is a 24-byte seal write and a swap to the file made
    /// ahead of need (compaction makes it, and fsyncs the previous seal, before it takes the lock;
    /// the new seal's fsync follows after the lock). With OnRequest upkeep, the first design: the
    /// seal's fsync and the next file's creation too, bounded by the device's fsync time.
    /// </summary>
    public TimeSpan SealWriterLockHold { get; init; }

    /// <summary>The priority the copy actually ran at, as the platform reported it back (Normal where it could not be lowered).</summary>
    public CompactionPriority Priority { get; init; }

    /// <summary>Wall time spent reading the inputs and writing, syncing and committing the output.</summary>
    public TimeSpan Copying { get; init; }

    /// <summary>Of <see cref="Copying"/>, the time spent waiting for I/O budget (<see cref="TailDbOptions.CompactionBytesPerSecond"/>).</summary>
    public TimeSpan Throttled { get; init; }
}
