namespace TailDb;

/// <summary>What opening the store found and repaired.</summary>
public sealed record RecoveryReport
{
    public int Segments { get; init; }

    /// <summary>Records replayed (puts and tombstones) from scanned segments plus entries loaded from hint files.</summary>
    public long Records { get; init; }

    public int HintFilesUsed { get; init; }

    /// <summary>Torn or corrupt tails cut off the newest segment.</summary>
    public IReadOnlyList<TailTruncation> TailTruncations { get; init; } = [];

    /// <summary>Records whose value failed its checksum; their keys read as <see cref="ReadStatus.Corrupt"/>.</summary>
    public IReadOnlyList<CorruptRecordInfo> CorruptRecords { get; init; } = [];

    /// <summary>Files left by an interrupted compaction and removed (temporary or superseded).</summary>
    public int LeftoverFilesRemoved { get; init; }

    public bool FoundDamage => TailTruncations.Count > 0 || CorruptRecords.Count > 0;
}

public sealed record TailTruncation(int Segment, long Offset, long BytesDropped, string Reason);

public sealed record CorruptRecordInfo(int Segment, long Offset, string Reason);
