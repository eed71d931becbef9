using System.Globalization;

namespace TailDb.Storage;

/// <summary>
/// One segment file. Files are named <c>{id:D8}-{generation:D4}.seg</c>; replay order is (id,
/// generation). Compaction of every sealed segment up to id b writes (b, g+1), which supersedes
/// every file with id ≤ b and a lower generation.
/// </summary>
internal sealed class Segment : IDisposable
{
    public const string Extension = ".seg";
    public const string HintExtension = ".hint";
    public const string TempSuffix = ".tmp";

    public Segment(int number, int id, int generation, IStorageFile file, long length)
    {
        Number = number;
        Id = id;
        Generation = generation;
        File = file;
        Length = length;
    }

    /// <summary>In-process number, unique for the store's lifetime (see <see cref="RecordLocation"/>).</summary>
    public int Number { get; }

    public int Id { get; }

    public int Generation { get; }

    public IStorageFile File { get; }

    /// <summary>Bytes appended so far; changed only by the writer under its lock.</summary>
    public long Length { get; set; }

    private long _deadBytes;

    /// <summary>Bytes of records superseded by later writes (and tombstones): what compaction would reclaim.</summary>
    public long DeadBytes => Volatile.Read(ref _deadBytes);

    public void AddDead(long bytes) => Interlocked.Add(ref _deadBytes, bytes);

    private volatile bool _sealDurable;

    /// <summary>
    /// Set once an fsync that began after the seal was written has returned: the segment, seal
    /// included, is on stable storage. Rotation writes the seal under the writer lock and leaves
    /// the fsync to whoever comes first off the lock (<see cref="SegmentWriter.CompleteSeal(Segment)"/>).
    /// </summary>
    public bool SealDurable
    {
        get => _sealDurable;
        set => _sealDurable = value;
    }

    /// <summary>Whether this spare was handed to the prefilling thread to be filled with zeros (set under the writer's spare lock; <see cref="SegmentWriter"/>).</summary>
    public bool PrefillStarted { get; set; }

    /// <summary>
    /// The prefilling thread's chunk (<see cref="SegmentWriter"/>, "Prefilled spares"):
    /// <see cref="long.MaxValue"/> when there is none; its offset when announced and not begun (a
    /// writer that took the file may take it back); <c>-(offset + 1)</c> while it is being written
    /// (a writer whose write reaches it waits). Announced before the thread checks the file is
    /// still the spare, read by the writer after the rotation took the file, both fenced.
    /// </summary>
    public long ZeroFillFrontier = long.MaxValue;

    public static string FileName(int id, int generation) =>
        string.Create(CultureInfo.InvariantCulture, $"{id:D8}-{generation:D4}{Extension}");

    public static string HintFileName(int id, int generation) =>
        string.Create(CultureInfo.InvariantCulture, $"{id:D8}-{generation:D4}{HintExtension}");

    public static bool TryParseName(string fileName, out int id, out int generation)
    {
        id = generation = 0;
        if (!fileName.EndsWith(Extension, StringComparison.Ordinal) || fileName.Length != 8 + 1 + 4 + Extension.Length || fileName[8] != '-')
        {
            return false;
        }

        return int.TryParse(fileName.AsSpan(0, 8), NumberStyles.None, CultureInfo.InvariantCulture, out id)
            && int.TryParse(fileName.AsSpan(9, 4), NumberStyles.None, CultureInfo.InvariantCulture, out generation);
    }

    public override string ToString() => FileName(Id, Generation);

    public void Dispose() => File.Dispose();
}
