namespace TailDb.Storage;

/// <summary>
/// Where a key's latest record lives. <see cref="SegmentNumber"/> is the in-process number of an
/// open segment (not its file id: a compacted file reuses an id but gets a fresh number, so a
/// location never names two files). Equality doubles as a version check: every write gets a
/// distinct (segment, offset).
/// </summary>
internal readonly record struct RecordLocation(int SegmentNumber, long Offset, int KeyLength, int ValueLength)
{
    /// <summary>A value length of -1 marks a record whose value failed its checksum at open.</summary>
    public bool IsCorrupt => ValueLength < 0;

    public int RecordSize => RecordFormat.HeaderSize + KeyLength + Math.Max(ValueLength, 0);

    public static RecordLocation Corrupt(int segmentNumber, long offset, int keyLength) => new(segmentNumber, offset, keyLength, -1);
}
