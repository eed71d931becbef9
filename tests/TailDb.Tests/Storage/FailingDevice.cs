using TailDb.Storage;

namespace TailDb.Tests.Storage;

/// <summary>
/// The real file device with switches that make writes or fsyncs fail (Garnet's flaky test device
/// idea), and counters of what was asked of it.
/// </summary>
internal sealed class FailingDevice : IStorageDevice
{
    private int _fsyncs;

    public bool FailWrites { get; set; }

    public bool FailFsyncs { get; set; }

    /// <summary>File fsyncs done (not directory ones).</summary>
    public int Fsyncs => Volatile.Read(ref _fsyncs);

    /// <summary>Delay inside every fsync, so concurrent writers pile up behind one.</summary>
    public TimeSpan FsyncDelay { get; set; }

    public IStorageFile Open(string path, FileMode mode, bool writable) =>
        new File(this, FileStorageDevice.Instance.Open(path, mode, writable));

    public void FlushDirectory(string directory) => FileStorageDevice.Instance.FlushDirectory(directory);

    public void Move(string source, string destination) => FileStorageDevice.Instance.Move(source, destination);

    public void Delete(string path) => FileStorageDevice.Instance.Delete(path);

    private sealed class File(FailingDevice device, IStorageFile inner) : IStorageFile
    {
        public string Path => inner.Path;

        public long Length => inner.Length;

        public int Read(Span<byte> buffer, long offset) => inner.Read(buffer, offset);

        public ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken) =>
            inner.ReadAsync(buffer, offset, cancellationToken);

        public void Write(ReadOnlySpan<byte> data, long offset)
        {
            if (device.FailWrites)
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

        public void SetLength(long length) => inner.SetLength(length);

        public void Dispose() => inner.Dispose();
    }
}
