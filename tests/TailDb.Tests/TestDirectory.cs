namespace TailDb.Tests;

/// <summary>A fresh directory under the temp path, deleted with the test.</summary>
public sealed class TestDirectory : IDisposable
{
    public TestDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "taildb-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public TailDbOptions Options() => new() { Directory = Path, ExpectedKeyCount = 1024, CacheCapacityBytes = 1 << 20 };

    public string[] SegmentFiles() => [.. Directory.GetFiles(Path, "*.seg").Order(StringComparer.Ordinal)];

    /// <summary>Segment files holding more than a header (and zeros): while a store is open, not the spare it made ahead of its next rotation.</summary>
    public string[] SegmentFilesWithRecords() => [.. SegmentFiles().Where(f => WrittenBytes(f) > TailDb.Storage.RecordFormat.FileHeaderSize)];

    /// <summary>A file's length less the zeros that end it: what a prefilled segment holds.</summary>
    public static long WrittenBytes(string file) => File.ReadAllBytes(file).AsSpan().LastIndexOfAnyExcept((byte)0) + 1;

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // A child process may still be releasing a handle; the temp directory is cleaned later.
        }
    }
}
