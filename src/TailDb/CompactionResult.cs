namespace TailDb;

/// <summary>What one <see cref="TailDbStore.Compact"/> did.</summary>
public sealed record CompactionResult(int SegmentsCompacted, long LiveRecords, long BytesBefore, long BytesAfter)
{
    public long BytesReclaimed => BytesBefore - BytesAfter;
}
