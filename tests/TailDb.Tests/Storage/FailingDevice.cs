using TailDb.Storage;

namespace TailDb.Tests.Storage;

/// <summary>
/// The real file device with switches that make reads, writes or fsyncs fail (Garnet's flaky test device
/// idea), and counters of what was asked of it.
/// </summary>
internal sealed class FailingDevice : IStorageDevice
{
    private int _fsyncs;
    private int _writebacks;
    private int _truncations;

    public bool FailWrites { get; set; }

    private int _writes;

    /// <summary>Writes to the file with this name fail (as <see cref="FailWrites"/> does), others succeed: a failure at a chosen point.</summary>
    public string? FailWritesToFile { get; set; }

    /// <summary>Positional writes asked of the device (any file).</summary>
    public int Writes => Volatile.Read(ref _writes);

    public bool FailFsyncs { get; set; }

    private long _lastReadOffset = -1;

    /// <summary>Reads starting at this offset (of any file) fail with EIO: one bad record.</summary>
    public long? FailReadsAt { get; set; }

    /// <summary>The offset of the last read asked of the device, to aim <see cref="FailReadsAt"/> at a record.</summary>
    public long LastReadOffset => Interlocked.Read(ref _lastReadOffset);

    private bool ReadFails(long offset)
    {
        Interlocked.Exchange(ref _lastReadOffset, offset);
        return FailReadsAt == offset;
    }

    /// <summary>Writes to a compaction's temporary hint file fail (ENOSPC) after half the bytes.</summary>
    public bool FailHintWrites { get; set; }

    /// <summary>Renaming a temporary hint file into place fails.</summary>
    public bool FailHintRenames { get; set; }

    /// <summary>Writes to any temporary compaction output (segment or hint) fail (ENOSPC).</summary>
    public bool FailCompactionWrites { get; set; }

    private static bool IsTemporaryHint(string path) => path.EndsWith(Segment.HintExtension + Segment.TempSuffix, StringComparison.Ordinal);

    /// <summary>File fsyncs done (not directory ones).</summary>
    public int Fsyncs => Volatile.Read(ref _fsyncs);

    /// <summary>Range writebacks asked for (sync_file_range calls; compaction's pacing).</summary>
    public int Writebacks => Volatile.Read(ref _writebacks);

    /// <summary>Files cut shorter with SetLength (compaction deletes a large input in steps).</summary>
    public int Truncations => Volatile.Read(ref _truncations);

    /// <summary>Delay inside every fsync, so concurrent writers pile up behind one.</summary>
    public TimeSpan FsyncDelay { get; set; }

    public IStorageFile Open(string path, FileMode mode, bool writable) =>
        new File(this, FileStorageDevice.Instance.Open(path, mode, writable));

    public void FlushDirectory(string directory) => FileStorageDevice.Instance.FlushDirectory(directory);

    public void Move(string source, string destination)
    {
        if (FailHintRenames && IsTemporaryHint(source))
        {
            throw new IOException($"injected rename failure of '{source}' (Input/output error)");
        }

        FileStorageDevice.Instance.Move(source, destination);
    }

    public void Delete(string path) => FileStorageDevice.Instance.Delete(path);

    private sealed class File(FailingDevice device, IStorageFile inner) : IStorageFile
    {
        public string Path => inner.Path;

        public long Length => inner.Length;

        public int Read(Span<byte> buffer, long offset) =>
            device.ReadFails(offset) ? throw new IOException($"injected read failure of '{inner.Path}' at {offset} (Input/output error)") : inner.Read(buffer, offset);

        public ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken) =>
            device.ReadFails(offset)
                ? ValueTask.FromException<int>(new IOException($"injected read failure of '{inner.Path}' at {offset} (Input/output error)"))
                : inner.ReadAsync(buffer, offset, cancellationToken);

        public void Write(ReadOnlySpan<byte> data, long offset)
        {
            Interlocked.Increment(ref device._writes);
            bool temporary = inner.Path.EndsWith(Segment.TempSuffix, StringComparison.Ordinal);
            if (device.FailWrites || System.IO.Path.GetFileName(inner.Path) == device.FailWritesToFile || (device.FailCompactionWrites && temporary) || (device.FailHintWrites && IsTemporaryHint(inner.Path)))
            {
                // Half the bytes land, as a full disk would leave them.
                inner.Write(data[..(data.Length / 2)], offset);
                throw new IOException("injected write failure (No space left on device)");
            }

            inner.Write(data, offset);
        }

        public void Flush()
        {
            if (device.FsyncDelay > TimeSpan.Zero)
            {
                Thread.Sleep(device.FsyncDelay);
            }

            if (device.FailFsyncs)
            {
                throw new IOException("injected fsync failure (Input/output error)");
            }

            inner.Flush();
            Interlocked.Increment(ref device._fsyncs);
        }

        public void Writeback(long offset, long length, bool wait)
        {
            Interlocked.Increment(ref device._writebacks);
            inner.Writeback(offset, length, wait);
        }

        public void SetLength(long length)
        {
            if (length < inner.Length)
            {
                Interlocked.Increment(ref device._truncations);
            }

            inner.SetLength(length);
        }

        public void Dispose() => inner.Dispose();
    }
}
