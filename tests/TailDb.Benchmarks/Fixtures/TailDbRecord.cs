using TailDb.Storage;

namespace TailDb.Benchmarks.Fixtures;

/// <summary>TailDb's on-disk record size, from the store's own format, so raw baselines move the same bytes.</summary>
public static class TailDbRecord
{
    public static int Bytes(int keyBytes, int valueBytes) => RecordFormat.RecordSize(keyBytes, valueBytes);

    /// <summary>Offset of the first record in a segment file (after its magic).</summary>
    public static int FirstRecordOffset => RecordFormat.FileHeaderSize;
}
