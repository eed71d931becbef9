using TailDb.Storage;

namespace TailDb.Tests.Storage;

/// <summary>
/// The real file device (or <paramref name="inner"/>, e.g. a <see cref="FailingDevice"/> whose
/// failures are decided when the gate opens), except that fsyncs of one chosen file (or its write
/// at one chosen offset, <see cref="CloseWrite"/>) block until the test opens the gate: a slow
/// device made deterministic. The test learns that an fsync or write is held (and how many are)
/// from <see cref="WaitUntilHeld"/>, never from a clock.
/// </summary>
internal sealed class GatedDevice(IStorageDevice? inner = null) : IStorageDevice, IDisposable
{
    private readonly IStorageDevice _inner = inner ?? FileStorageDevice.Instance;
    private readonly ManualResetEventSlim _open = new(initialState: true);
    private readonly object _heldLock = new();
    private string? _gatedName;
    private long _gatedWriteOffset = -1;
    private int _held;

    /// <summary>From now on, fsyncs of the file named <paramref name="fileName"/> wait for <see cref="Open"/>.</summary>
    public void Close(string fileName)
    {
        _gatedName = fileName;
        _gatedWriteOffset = -1;
        _open.Reset();
    }

    /// <summary>From now on, a write to the file named <paramref name="fileName"/> at exactly <paramref name="offset"/> waits for <see cref="Open"/> (fsyncs pass).</summary>
    public void CloseWrite(string fileName, long offset)
    {
        _gatedName = fileName;
        _gatedWriteOffset = offset;
        _open.Reset();
    }

    public void Open() => _open.Set();

    public void Dispose() => _open.Dispose();

    /// <summary>Fsyncs of the gated file that have started and not yet been let through.</summary>
    public int Held
    {
        get
        {
            lock (_heldLock)
            {
                return _held;
            }
        }
    }

    /// <summary>Returns once <paramref name="count"/> fsyncs of the gated file are waiting at the gate (false after a minute: a hang).</summary>
    public bool WaitUntilHeld(int count)
    {
        lock (_heldLock)
        {
            var deadline = DateTime.UtcNow.AddMinutes(1);
            while (_held < count)
            {
                TimeSpan left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                {
                    return false;
                }

                Monitor.Wait(_heldLock, left);
            }

            return true;
        }
    }

    IStorageFile IStorageDevice.Open(string path, FileMode mode, bool writable) =>
        new File(this, _inner.Open(path, mode, writable));

    public void FlushDirectory(string directory) => _inner.FlushDirectory(directory);

    public void Move(string source, string destination) => _inner.Move(source, destination);

    public void Delete(string path) => _inner.Delete(path);

    private void Pass(string path, long writeOffset = -1)
    {
        if (_open.IsSet || System.IO.Path.GetFileName(path) != _gatedName || writeOffset != _gatedWriteOffset)
        {
            return;
        }

        lock (_heldLock)
        {
            _held++;
            Monitor.PulseAll(_heldLock);
        }

        _open.Wait();
        lock (_heldLock)
        {
            _held--;
        }
    }

    private sealed class File(GatedDevice device, IStorageFile inner) : IStorageFile
    {
        public string Path => inner.Path;

        public long Length => inner.Length;

        public int Read(Span<byte> buffer, long offset) => inner.Read(buffer, offset);

        public ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken) =>
            inner.ReadAsync(buffer, offset, cancellationToken);

        public void Write(ReadOnlySpan<byte> data, long offset)
        {
            device.Pass(inner.Path, offset);
            inner.Write(data, offset);
        }

        public void Writeback(long offset, long length, bool wait) => inner.Writeback(offset, length, wait);

        public void Flush()
        {
            device.Pass(inner.Path);
            inner.Flush();
        }

        public void SetLength(long length) => inner.SetLength(length);

        public void Dispose() => inner.Dispose();
    }
}
