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

    /// <summary>Segment files holding more than a header: while a store is open, not the spare it made ahead of its next rotation.</summary>
    public string[] SegmentFilesWithRecords() => [.. SegmentFiles().Where(f => new FileInfo(f).Length > TailDb.Storage.RecordFormat.FileHeaderSize)];

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
