using System.Buffers;
using System.Diagnostics;
using TailDb.Caching;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb;

public sealed partial class TailDbStore
{
    /// <summary>Stores <paramref name="value"/> under <paramref name="key"/>; returns once durable per <see cref="TailDbOptions.Durability"/>.</summary>
    /// <exception cref="ArgumentException">Empty key, key over 64 KiB, or value over <see cref="TailDbOptions.MaxValueBytes"/>.</exception>
    /// <exception cref="TailDbFaultedException">A write or fsync failed (now or earlier).</exception>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        ValidateWrite(key, value.Length);
        WriteScope scope = BeginPut(key, value.Length);
        int bytes = 0;
        try
        {
            long sequence = Append(key, value, tombstone: false, out bytes);
            _groupCommit?.WaitDurable(sequence, scope.RequestId);
        }
        finally
        {
            EndWrite(scope, "put", bytes, found: true);
        }
    }

    public void Put(string key, ReadOnlySpan<byte> value)
    {
        using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes]);
        Put(utf8.Bytes, value);
    }

    /// <summary>Like <see cref="Put(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>; with Fsync the wait for the group commit is asynchronous.</summary>
    public async ValueTask PutAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, CancellationToken ct = default)
    {
        ValidateWrite(key.Span, value.Length);
        WriteScope scope = BeginPut(key.Span, value.Length);
        int bytes = 0;
        try
        {
            long sequence = Append(key.Span, value.Span, tombstone: false, out bytes);
            if (_groupCommit is not null)
            {
                await _groupCommit.WaitDurableAsync(sequence, scope.RequestId, ct).ConfigureAwait(false);
            }
        }
        finally
        {
            EndWrite(scope, "put", bytes, found: true);
        }
    }

    /// <summary>Removes <paramref name="key"/>; false if it was absent (then nothing is written).</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        ValidateWrite(key, 0);
        WriteScope scope = BeginDelete(key);
        bool found = false;
        try
        {
            long sequence = Append(key, default, tombstone: true, out int bytes);
            found = bytes > 0;
            if (found)
            {
                _groupCommit?.WaitDurable(sequence, scope.RequestId);
            }
        }
        finally
        {
            EndWrite(scope, "delete", 0, found);
        }

        return found;
    }

    public bool Delete(string key)
    {
        using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes]);
        return Delete(utf8.Bytes);
    }

    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key, CancellationToken ct = default)
    {
        ValidateWrite(key.Span, 0);
        WriteScope scope = BeginDelete(key.Span);
        bool found = false;
        try
        {
            long sequence = Append(key.Span, default, tombstone: true, out int bytes);
            found = bytes > 0;
            if (found && _groupCommit is not null)
            {
                await _groupCommit.WaitDurableAsync(sequence, scope.RequestId, ct).ConfigureAwait(false);
            }
        }
        finally
        {
            EndWrite(scope, "delete", 0, found);
        }

        return found;
    }

    /// <summary>
    /// Appends a put or tombstone and updates index and cache under the writer lock, so they change
    /// in log order. Returns the append sequence to wait on; <paramref name="bytes"/> is 0 when a
    /// delete found nothing to delete (and wrote nothing).
    /// </summary>
    private long Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, bool tombstone, out int bytes)
    {
        int size = RecordFormat.RecordSize(key.Length, tombstone ? 0 : value.Length);
        byte[] record = ArrayPool<byte>.Shared.Rent(size);
        try
        {
            RecordFormat.Write(record, key, value, tombstone);
            // The key directory's seed is fixed once the store is open: hash before the lock, not under it
            // (and the cache's, once for its steps, when there is a cache).
            int hash = _keyDir.Hash(key);
            int cacheHash = _cache.Enabled ? ValueCache.Hash(key) : 0;
            long sequence;
            bool cached = false;
            lock (_writer.WriteLock)
            {
                ThrowIfDisposed();
                if (tombstone && !_keyDir.TryGet(key, hash, out _))
                {
                    bytes = 0;
                    return 0;
                }

                RecordLocation location = _writer.AppendLocked(record.AsSpan(0, size), key.Length, tombstone ? 0 : value.Length);
                RecordLocation previous;
                // From the key directory's change to the cache's, no fill may be published and no hit
                // may copy the value it supersedes (ValueCache.OpenWrite).
                _cache.OpenWrite(key, cacheHash);
                try
                {
                    if (tombstone)
                    {
                        _keyDir.Remove(key, out previous);
                        _cache.Remove(key, cacheHash);
                        _writer.Active.AddDead(size);
                    }
                    else
                    {
                        _keyDir.Set(key, hash, location, out previous);
                        cached = UpdateCache(key, cacheHash, value);
                    }
                }
                finally
                {
                    _cache.CloseWrites();
                }

                _writer.Segments.Supersede(previous);
                sequence = _writer.Sequence;
            }

            bytes = size;
            _telemetry.Written(size);
            if (cached)
            {
                _cache.WakeEvictorIfOver();
            }

            return sequence;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(record);
        }
    }

    /// <summary>Under the writer lock, after the key directory moved: what the put leaves in the cache, per <see cref="TailDbOptions.CacheWrites"/>; true when it cached a new slot.</summary>
    private bool UpdateCache(ReadOnlySpan<byte> key, int cacheHash, ReadOnlySpan<byte> value)
    {
        if (!_cache.Enabled)
        {
            return false;
        }

        // The key directory's change is visible before the slot's state is read (ValueCache.UpdateAfterFence).
        Interlocked.MemoryBarrier();
        return UpdateCacheAfterFence(key, cacheHash, value);
    }

    /// <summary>
    /// <see cref="UpdateCache"/> after the caller's fence. Invalidate drops the key's cached value;
    /// Update rewrites it in place when it has the value's length, else drops it; Through does the
    /// same, and caches a new slot when the key had none of that length. So only a key's first
    /// write (or a change of its length) allocates, under the lock: a key written again and again
    /// allocates nothing. The slot is pinned, as a fill's: a cached value is meant to live, and on
    /// the small-object heap it would be copied from generation to generation.
    /// </summary>
    private bool UpdateCacheAfterFence(ReadOnlySpan<byte> key, int cacheHash, ReadOnlySpan<byte> value)
    {
        if (_options.CacheWrites == CacheWrites.Invalidate)
        {
            _cache.RemoveAfterFence(key, cacheHash);
            return false;
        }

        if (_cache.UpdateAfterFence(key, cacheHash, value) || _options.CacheWrites != CacheWrites.Through || !_cache.Fits(key.Length, value.Length))
        {
            return false;
        }

        _cache.Set(key, cacheHash, ValueCache.CreateSlot(value, pinned: true));
        return true;
    }

    private void ValidateWrite(ReadOnlySpan<byte> key, int valueLength)
    {
        RecordFormat.ValidateKey(key);
        if (valueLength > _options.MaxValueBytes)
        {
            ThrowValueTooLarge(valueLength, _options.MaxValueBytes, nameof(valueLength));
        }

        ThrowIfNotWritable();
        _fault.ThrowIfFaulted();
    }

    private void ThrowIfNotWritable()
    {
        ThrowIfDisposed();
        if (_options.ReadOnly)
        {
            throw new InvalidOperationException($"The TailDb store at '{_directory}' was opened read-only.");
        }
    }

    private static void ThrowValueTooLarge(int length, int max, string paramName) =>
        throw new ArgumentException($"A TailDb value is at most {max} bytes (TailDbOptions.MaxValueBytes); this one has {length}.", paramName);

    /// <summary>A write in flight: its event activity id (empty when request events are off), start time and System.Diagnostics.Activity.</summary>
    private readonly record struct WriteScope(Guid RequestId, long Started, Activity? Activity);

    private WriteScope BeginPut(ReadOnlySpan<byte> key, int valueBytes)
    {
        Guid request = Guid.Empty;
        if (_telemetry.RequestEvents())
        {
            request = TailDbEventSource.NewActivityId();
            TailDbEventSource.Log.PutStart(request, TailDbEventSource.CurrentParent(), key.Length, KeyHash.Of(key), valueBytes);
        }

        return new WriteScope(request, _telemetry.StartTimestamp(), _telemetry.StartActivity("TailDb.Put"));
    }

    private WriteScope BeginDelete(ReadOnlySpan<byte> key)
    {
        Guid request = Guid.Empty;
        if (_telemetry.RequestEvents())
        {
            request = TailDbEventSource.NewActivityId();
            TailDbEventSource.Log.DeleteStart(request, TailDbEventSource.CurrentParent(), key.Length, KeyHash.Of(key));
        }

        return new WriteScope(request, _telemetry.StartTimestamp(), _telemetry.StartActivity("TailDb.Delete"));
    }

    private void EndWrite(WriteScope scope, string operation, int bytes, bool found)
    {
        scope.Activity?.Dispose();
        _telemetry.RecordDuration(scope.Started, operation);
        if (scope.RequestId != Guid.Empty)
        {
            TailDbEventSource.Log.WriteStop(
                scope.RequestId,
                operation == "put" ? TailDbEventSource.EventIds.PutStop : TailDbEventSource.EventIds.DeleteStop,
                operation == "put" ? bytes : found ? 1 : 0);
        }
    }
}
