using TailDb.Caching;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb;

/// <summary>
/// A key-value store: a bounded value cache in front of append-only, checksummed segment files,
/// with an in-memory key directory. Thread-safe; one writer process per directory.
/// Reads: <see cref="TryGet"/> (zero-copy, 0 bytes allocated on a cache hit) and <see cref="Get(ReadOnlySpan{byte})"/>.
/// Writes return once durable per <see cref="TailDbOptions.Durability"/>; a write is visible to
/// readers as soon as it is appended, slightly before a Fsync-mode Put returns.
/// Every request emits TailDbEventSource Start/Stop events, an Activity when listened to, and metrics.
/// </summary>
public sealed partial class TailDbStore : IDisposable
{
    private readonly TailDbOptions _options;
    private readonly string _directory;
    private readonly IStorageDevice _device;
    private readonly LockFile? _lockFile;
    private readonly KeyDir _keyDir;
    private readonly ValueCache _cache;
    private readonly SegmentWriter _writer;
    private readonly GroupCommit? _groupCommit;
    private readonly StoreFault _fault;
    private readonly TailDbTelemetry _telemetry;
    private readonly Lock _compactionLock = new();
    private readonly ReaderEpoch _epoch = new();
    private volatile bool _disposed;

    private TailDbStore(TailDbOptions options, string directory, IStorageDevice device, LockFile? lockFile, KeyDir keyDir, SegmentSet segments, int lastNumber, RecoveryReport recovery)
    {
        _options = options;
        _directory = directory;
        _device = device;
        _lockFile = lockFile;
        _keyDir = keyDir;
        _fault = new StoreFault(directory);
        _telemetry = new TailDbTelemetry(options.WritesEvents);
        _cache = new ValueCache(options.CacheCapacityBytes, options.ExpectedKeyCount, _telemetry, options.Upkeep);
        _writer = new SegmentWriter(device, directory, options, _fault, segments, lastNumber);
        _groupCommit = options.Durability == Durability.Fsync ? new GroupCommit(_writer, _fault, options.DurableWaitersScheduler) : null;
        Recovery = recovery;
    }

    /// <summary>What open found and repaired.</summary>
    public RecoveryReport Recovery { get; }

    /// <summary>The directory, as a full path.</summary>
    public string Directory => _directory;

    /// <summary>Bytes the cache currently holds (values, keys, per-entry overhead).</summary>
    public long CacheSizeBytes => _cache.SizeBytes;

    /// <summary>Live keys (one read of the key directory's count; the name predates that).</summary>
    public int CountKeysSlow() => _keyDir.Count;

    /// <summary>This store's ActivitySource and Meter (tests filter their listeners by instance).</summary>
    internal TailDbTelemetry Telemetry => _telemetry;

    /// <summary>Segment rotations that did slow work under the writer lock (see <see cref="SegmentWriter"/>); for tests.</summary>
    internal int SlowRotations => _writer.SlowRotations;

    /// <summary>The CPU priority of the thread that prefills spares (null without one); for tests.</summary>
    internal CompactionPriority? PrefillPriority => _writer.PrefillPriority;

    /// <summary>The key directory's hash seed (kept in hint files, adopted by the next open); for tests.</summary>
    internal ulong KeyHashSeed => _keyDir.Seed;

    /// <summary>True once a write or fsync failed; every later write throws <see cref="TailDbFaultedException"/>.</summary>
    public bool IsFaulted => _fault.IsFaulted;

    /// <summary>The message a <see cref="TailDbFaultedException"/> would carry now, or null if the store is not faulted.</summary>
    public string? FaultMessage => _fault.Message;

    /// <summary>Opens (or creates) the store in <see cref="TailDbOptions.Directory"/>, repairing a torn tail.</summary>
    /// <exception cref="TailDbLockedException">Another writer holds the directory.</exception>
    /// <exception cref="TailDbCorruptionException">The files are damaged in a way that could return wrong values.</exception>
    public static TailDbStore Open(TailDbOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        string directory = Path.GetFullPath(options.Directory);
        if (options.ReadOnly)
        {
            if (!System.IO.Directory.Exists(directory))
            {
                throw new DirectoryNotFoundException($"The TailDb directory '{directory}' does not exist (opened read-only, so it is not created).");
            }
        }
        else
        {
            System.IO.Directory.CreateDirectory(directory);
        }

        IStorageDevice device = options.Device ?? FileStorageDevice.Instance;
        LockFile? lockFile = options.ReadOnly ? null : LockFile.Acquire(directory);
        try
        {
            var keyDir = new KeyDir(options.ExpectedKeyCount);
            (SegmentSet segments, int lastNumber, RecoveryReport report) = Storage.Recovery.Run(device, directory, options, keyDir);
            var store = new TailDbStore(options, directory, device, lockFile, keyDir, segments, lastNumber, report);
            store._writer.StartPreparing();
            return store;
        }
        catch
        {
            lockFile?.Dispose();
            throw;
        }
    }

    /// <summary>Closes the files and releases the directory lock. Pending writes have already returned.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        lock (_compactionLock)
        {
            lock (_writer.WriteLock)
            {
                if (_disposed)
                {
                    return;
                }

                _disposed = true;
                // Readers that got past the disposed check finish their file reads first.
                _epoch.WaitForReaders();
                _writer.Dispose();
            }
        }

        _cache.Close();
        _groupCommit?.Dispose();
        _telemetry.Dispose();
        _lockFile?.Dispose();
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_disposed, this);
}
