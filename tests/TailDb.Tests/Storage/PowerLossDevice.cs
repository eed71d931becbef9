using TailDb.Storage;

namespace TailDb.Tests.Storage;

/// <summary>
/// Simulates a machine that loses power: the real files are written as usual, but the device
/// remembers what an fsync made durable. <see cref="PowerOff"/> makes every later operation fail;
/// <see cref="Restore"/> then puts the directory in the state a disk would have after the reboot:
/// each file's content as its last fsync found it (an overwrite after it is lost as an append is,
/// which matters since the writer overwrites a prefilled spare's zeros), files whose creation or rename was never made
/// durable by a directory fsync removed or renamed back. A SIGKILL cannot test fsync logic (the page
/// cache survives it); this can.
/// </summary>
internal sealed class PowerLossDevice : IStorageDevice
{
    private readonly Lock _lock = new();
    private readonly Dictionary<string, FileState> _files = new(StringComparer.Ordinal);
    private readonly List<(string From, string To)> _pendingRenames = [];
    private volatile bool _off;

    // TAILDB_POWERLOSS_JITTER=1 (a diagnostic, off by default): random pauses around each device
    // operation, to shake out interleavings of writers, the preparer, group commit and compaction.
    private static readonly bool s_jitter = Environment.GetEnvironmentVariable("TAILDB_POWERLOSS_JITTER") == "1";

    private long _fsyncs;

    private sealed class FileState
    {
        /// <summary>The content the latest-begun fsync that has returned found when it began.</summary>
        public byte[] Durable { get; set; } = [];

        public long DurableTicket { get; set; }

        public bool EntryDurable { get; set; }
    }

    /// <summary>Called with the path at the start of every <see cref="Open"/>: a test may block there to order a race.</summary>
    public Action<string>? BeforeOpen { get; set; }

    public void PowerOff() => _off = true;

    public void Restore()
    {
        lock (_lock)
        {
            for (int i = _pendingRenames.Count - 1; i >= 0; i--)
            {
                (string from, string to) = _pendingRenames[i];
                if (File.Exists(to))
                {
                    File.Move(to, from, overwrite: true);
                }

                if (_files.Remove(to, out FileState? state))
                {
                    _files[from] = state;
                }
            }

            foreach ((string path, FileState state) in _files)
            {
                if (!File.Exists(path))
                {
                    continue;
                }

                if (!state.EntryDurable)
                {
                    File.Delete(path);
                }
                else if (!File.ReadAllBytes(path).AsSpan().SequenceEqual(state.Durable))
                {
                    using var stream = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);
                    stream.SetLength(state.Durable.Length);
                    stream.Write(state.Durable);
                }
            }
        }
    }

    public IStorageFile Open(string path, FileMode mode, bool writable)
    {
        BeforeOpen?.Invoke(path);
        ThrowIfOff();
        lock (_lock)
        {
            bool existed = File.Exists(path);
            IStorageFile inner = FileStorageDevice.Instance.Open(path, mode, writable);
            if (!_files.TryGetValue(path, out FileState? state))
            {
                state = existed ? new FileState { Durable = Content(inner), EntryDurable = true } : new FileState();
                _files[path] = state;
            }

            return new DeviceFile(this, inner, state);
        }
    }

    public void FlushDirectory(string directory)
    {
        Jitter();
        ThrowIfOff();
        FileStorageDevice.Instance.FlushDirectory(directory);
        lock (_lock)
        {
            foreach ((string path, FileState state) in _files)
            {
                if (Path.GetDirectoryName(path) == directory)
                {
                    state.EntryDurable = true;
                }
            }

            _pendingRenames.RemoveAll(r => Path.GetDirectoryName(r.To) == directory);
        }
    }

    public void Move(string source, string destination)
    {
        ThrowIfOff();
        lock (_lock)
        {
            FileStorageDevice.Instance.Move(source, destination);
            if (_files.Remove(source, out FileState? state))
            {
                _files[destination] = state;
            }

            _pendingRenames.Add((source, destination));
        }
    }

    public void Delete(string path)
    {
        ThrowIfOff();
        lock (_lock)
        {
            FileStorageDevice.Instance.Delete(path);
            _files.Remove(path);
        }
    }

    private static void Jitter()
    {
        if (!s_jitter)
        {
            return;
        }

        int roll = Random.Shared.Next(16);
        if (roll < 3)
        {
            Thread.Sleep(roll);
        }
        else if (roll < 8)
        {
            Thread.Yield();
        }
    }

    private void ThrowIfOff()
    {
        if (_off)
        {
            throw new IOException("simulated power loss");
        }
    }

    private static byte[] Content(IStorageFile file)
    {
        byte[] content = new byte[file.Length];
        int read = file.Read(content, 0);
        return read == content.Length ? content : content[..read];
    }

    private sealed class DeviceFile(PowerLossDevice device, IStorageFile inner, FileState state) : IStorageFile
    {
        public string Path => inner.Path;

        public long Length => inner.Length;

        public int Read(Span<byte> buffer, long offset) => inner.Read(buffer, offset);

        public ValueTask<int> ReadAsync(Memory<byte> buffer, long offset, CancellationToken cancellationToken) =>
            inner.ReadAsync(buffer, offset, cancellationToken);

        public void Write(ReadOnlySpan<byte> data, long offset)
        {
            Jitter();
            device.ThrowIfOff();
            inner.Write(data, offset);
            Jitter();
        }

        public void Writeback(long offset, long length, bool wait)
        {
            device.ThrowIfOff();
            // Written back is not durable: no metadata, no promise. Durable stays.
            inner.Writeback(offset, length, wait);
        }

        public void Flush()
        {
            Jitter();
            device.ThrowIfOff();
            // Only what was written before the fsync began is promised durable.
            long ticket = Interlocked.Increment(ref device._fsyncs);
            byte[] content = Content(inner);
            Jitter();
            inner.Flush();
            Jitter();
            lock (device._lock)
            {
                // The latest-begun fsync wins, not the last to return: a group-commit leader that
                // read the file before a rotation appended the seal can finish its fsync after the
                // rotation's own, and an fsync never makes what a later-begun one made durable un-durable.
                if (ticket > state.DurableTicket)
                {
                    state.Durable = content;
                    state.DurableTicket = ticket;
                }
            }
        }

        public void SetLength(long length)
        {
            device.ThrowIfOff();
            inner.SetLength(length);
            lock (device._lock)
            {
                // Bytes cut off are gone whatever an earlier fsync promised; later ones need their own.
                if (state.Durable.Length > length)
                {
                    state.Durable = state.Durable[..(int)length];
                }
            }
        }

        public void Dispose() => inner.Dispose();
    }
}
