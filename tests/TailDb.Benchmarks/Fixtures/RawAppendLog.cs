using Microsoft.Win32.SafeHandles;

namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// The physical limit under a Put: positional appends of whole records to one file, each writer
/// reserving its offset with one interlocked add (no lock), optionally followed by its own fsync
/// (no group commit). Records are the size TailDb writes for the same key and value.
/// </summary>
public sealed class RawAppendLog : IDisposable
{
    private readonly SafeFileHandle _handle;
    private readonly byte[] _record;
    private long _end;

    public RawAppendLog(string path, int recordBytes)
    {
        _handle = File.OpenHandle(path, FileMode.Create, FileAccess.ReadWrite, FileShare.Read);
        _record = new byte[recordBytes];
        new Random(7).NextBytes(_record);
    }

    public void Append(bool fsync)
    {
        var offset = Interlocked.Add(ref _end, _record.Length) - _record.Length;
        RandomAccess.Write(_handle, _record, offset);
        if (fsync)
        {
            RandomAccess.FlushToDisk(_handle);
        }
    }

    public void Dispose() => _handle.Dispose();
}
