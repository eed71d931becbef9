using System.Buffers;

namespace TailDb.Storage;

internal enum ScanOutcome
{
    /// <summary>The offset is the end of the file.</summary>
    End,

    /// <summary>An intact record.</summary>
    Record,

    /// <summary>The seal that closes a segment (intact, or with only its value damaged).</summary>
    Seal,

    /// <summary>Header and key intact, the value damaged or cut short: the key is known to be corrupt.</summary>
    ValueCorrupt,

    /// <summary>Lengths implausible, header checksum wrong, or header cut short: nothing after this can be trusted.</summary>
    HeaderCorrupt,

    /// <summary>
    /// Zeros from the offset to the end of the file: space the writer filled ahead of need
    /// (<see cref="SegmentWriter"/>'s prefilled spares) and never wrote. The written log ends here;
    /// nothing was cut.
    /// </summary>
    Unwritten,
}

/// <summary>A record as the scanner sees it; the spans are valid until the next call.</summary>
internal readonly ref struct ScannedRecord
{
    public ScannedRecord(long offset, int size, int valueLength, ReadOnlySpan<byte> key, ReadOnlySpan<byte> record, string? damage)
    {
        Offset = offset;
        Size = size;
        ValueLength = valueLength;
        Key = key;
        Record = record;
        Damage = damage;
    }

    public long Offset { get; }

    /// <summary>The record's size as its header declares it.</summary>
    public int Size { get; }

    /// <summary>-1 for a tombstone.</summary>
    public int ValueLength { get; }

    public ReadOnlySpan<byte> Key { get; }

    /// <summary>The whole encoded record (Record outcome only).</summary>
    public ReadOnlySpan<byte> Record { get; }

    public string? Damage { get; }

    public bool IsTombstone => ValueLength < 0;
}

/// <summary>
/// Reads a segment front to back through a sliding buffer (recovery and compaction).
/// <para>
/// A segment may end in zeros: the writer fills its next segment with zeros ahead of need, so
/// that an append overwrites page-cache pages instead of allocating and zeroing them under the
/// writer lock, and a crash leaves that segment at its full size. No record begins with zeros (a
/// record's key length is at least 1, a seal's value length is 8), so zeros from a record's
/// offset to the end of the file are unwritten space (<see cref="ScanOutcome.Unwritten"/>), and
/// a record cut short just before them is a torn tail, as it would be at the end of the file.
/// </para>
/// </summary>
internal sealed class SegmentScanner
{
    private const int ZeroChunk = 64 * 1024;

    private readonly IStorageFile _file;
    private readonly int _maxValueBytes;
    private byte[] _buffer = new byte[256 * 1024];
    private long _bufferStart;
    private int _bufferCount;
    private long _zerosFrom = -1;

    public SegmentScanner(IStorageFile file, long length, int maxValueBytes)
    {
        _file = file;
        Length = length;
        _maxValueBytes = maxValueBytes;
    }

    public long Length { get; }

    public ScanOutcome Next(long offset, out ScannedRecord record)
    {
        record = default;
        if (offset >= Length)
        {
            return ScanOutcome.End;
        }

        ReadOnlySpan<byte> header = Window(offset, RecordFormat.HeaderSize);
        if (!header.ContainsAnyExcept((byte)0) && IsUnwrittenFrom(offset))
        {
            return ScanOutcome.Unwritten;
        }

        if (header.Length < RecordFormat.HeaderSize)
        {
            record = new ScannedRecord(offset, 0, 0, default, default, $"record header cut short at end of file ({Length - offset} bytes)");
            return ScanOutcome.HeaderCorrupt;
        }

        if (!RecordFormat.TryReadLengths(header, _maxValueBytes, out int keyLength, out int valueLength))
        {
            record = new ScannedRecord(offset, 0, 0, default, default, $"implausible lengths (key {keyLength}, value {valueLength})");
            return ScanOutcome.HeaderCorrupt;
        }

        ReadOnlySpan<byte> headerAndKey = Window(offset, RecordFormat.HeaderSize + keyLength);
        if (headerAndKey.Length < RecordFormat.HeaderSize + keyLength)
        {
            record = new ScannedRecord(offset, 0, 0, default, default, "record key cut short at end of file");
            return ScanOutcome.HeaderCorrupt;
        }

        if (!RecordFormat.HeaderIntact(headerAndKey))
        {
            record = new ScannedRecord(offset, 0, 0, default, default, "header checksum mismatch");
            return ScanOutcome.HeaderCorrupt;
        }

        int size = RecordFormat.RecordSize(keyLength, Math.Max(valueLength, 0));
        ReadOnlySpan<byte> whole = Window(offset, size);
        if (keyLength == 0)
        {
            // Header intact says this is a seal; only its value (an offset, informational) could be damaged.
            record = new ScannedRecord(offset, size, valueLength, default, default, whole.Length < size ? "seal cut short at end of file" : null);
            return whole.Length < size ? ScanOutcome.HeaderCorrupt : ScanOutcome.Seal;
        }

        if (whole.Length < size)
        {
            record = new ScannedRecord(offset, size, valueLength, Window(offset, RecordFormat.HeaderSize + keyLength)[RecordFormat.HeaderSize..], default, "value cut short at end of file");
            return ScanOutcome.ValueCorrupt;
        }

        ReadOnlySpan<byte> key = whole.Slice(RecordFormat.HeaderSize, keyLength);
        if (!RecordFormat.RecordIntact(whole))
        {
            record = new ScannedRecord(offset, size, valueLength, key, default, "record checksum mismatch");
            return ScanOutcome.ValueCorrupt;
        }

        record = new ScannedRecord(offset, size, valueLength, key, whole, null);
        return ScanOutcome.Record;
    }

    /// <summary>
    /// Whether an intact record starts anywhere after <paramref name="offset"/>: tells a torn tail
    /// (nothing valid follows; safe to cut) from damage in the middle of the data.
    /// </summary>
    public bool AnyIntactRecordAfter(long offset)
    {
        // No record starts in the zeros at the end (see the class comment): stop where they begin.
        long end = Math.Min(Length, ZerosFrom());
        for (long p = offset + 1; p + RecordFormat.HeaderSize <= end; p++)
        {
            if (Next(p, out _) == ScanOutcome.Record)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether every byte from <paramref name="offset"/> to the end of the file is zero (true at the end itself).</summary>
    public bool IsUnwrittenFrom(long offset) => offset >= ZerosFrom();

    /// <summary>
    /// Whether <paramref name="file"/> holds anything but zeros after its header: false for a
    /// spare the writer prefilled and a crash left unused (or one with only its header). Reads the
    /// first record's header, and the whole file backwards only when that is zeros.
    /// </summary>
    public static bool HoldsRecords(IStorageFile file)
    {
        Span<byte> first = stackalloc byte[RecordFormat.HeaderSize];
        int read = file.Read(first, RecordFormat.FileHeaderSize);
        return first[..read].ContainsAnyExcept((byte)0) || ZerosFrom(file, file.Length) > RecordFormat.FileHeaderSize;
    }

    /// <summary>Where the zeros that end the file begin (its length when its last byte is not zero); read backwards once, on first use.</summary>
    private long ZerosFrom() => _zerosFrom >= 0 ? _zerosFrom : _zerosFrom = ZerosFrom(_file, Length);

    private static long ZerosFrom(IStorageFile file, long length)
    {
        byte[] chunk = ArrayPool<byte>.Shared.Rent(ZeroChunk);
        try
        {
            long end = length;
            while (end > 0)
            {
                int count = (int)Math.Min(ZeroChunk, end);
                int read = file.Read(chunk.AsSpan(0, count), end - count);
                int last = chunk.AsSpan(0, read).LastIndexOfAnyExcept((byte)0);
                if (last >= 0 || read < count)
                {
                    // A short read (the file shrank under us) ends the search where the data ends.
                    return end - count + last + 1;
                }

                end -= count;
            }

            return 0;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(chunk);
        }
    }

    private ReadOnlySpan<byte> Window(long offset, int count)
    {
        if (offset >= _bufferStart && offset + count <= _bufferStart + _bufferCount)
        {
            return _buffer.AsSpan((int)(offset - _bufferStart), count);
        }

        if (count > _buffer.Length)
        {
            _buffer = new byte[Math.Max(count, _buffer.Length * 2)];
        }

        _bufferStart = offset;
        _bufferCount = _file.Read(_buffer, offset);
        return _buffer.AsSpan(0, Math.Min(count, _bufferCount));
    }
}
