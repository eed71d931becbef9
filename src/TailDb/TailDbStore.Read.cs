using System.Buffers;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using TailDb.Caching;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb;

public sealed partial class TailDbStore
{
    // How often a read retries when compaction retires a segment between its index lookup and its file read.
    private const int RetiredSegmentRetries = 16;

    /// <summary>
    /// Writes the value of <paramref name="key"/> into <paramref name="destination"/>. Allocates
    /// nothing on a cache hit. Returns <see cref="ReadStatus.Corrupt"/> (and writes nothing) when the
    /// key's record fails its checksum.
    /// </summary>
    public ReadStatus TryGet(ReadOnlySpan<byte> key, IBufferWriter<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        RecordFormat.ValidateKey(key);

        // The hit path nobody observes: one lookup and one copy (the benchmark budget is 1.3x a
        // bare dictionary lookup + copy). Anything observed, missed or disposed takes the full path.
        if (!_disposed && !_telemetry.Observed() && _cache.TryGet(key, out byte[]? slot))
        {
            ReadOnlySpan<byte> value = ValueCache.ValueOf(slot);
            value.CopyTo(destination.GetSpan(value.Length));
            destination.Advance(value.Length);
            return ReadStatus.Hit;
        }

        var sink = new BufferWriterSink(destination);
        return Read(key, ref sink);
    }

    /// <summary>The value as a new array, or null if absent.</summary>
    /// <exception cref="TailDbCorruptionException">The key's record failed its checksum.</exception>
    public byte[]? Get(ReadOnlySpan<byte> key)
    {
        var sink = new ArraySink();
        ReadStatus status = Read(key, ref sink);
        return status switch
        {
            ReadStatus.Hit or ReadStatus.Miss => sink.Value,
            ReadStatus.NotFound => null,
            _ => throw CorruptKey(key.Length),
        };
    }

    public byte[]? Get(string key)
    {
        using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes]);
        return Get(utf8.Bytes);
    }

    /// <summary>
    /// Like <see cref="Get(ReadOnlySpan{byte})"/>; a cache hit completes synchronously without
    /// allocating a task, a miss awaits an asynchronous positional read.
    /// </summary>
    public async ValueTask<byte[]?> GetAsync(ReadOnlyMemory<byte> key, CancellationToken ct = default)
    {
        RecordFormat.ValidateKey(key.Span);
        ThrowIfDisposed();
        GetScope scope = BeginGet(key.Span);
        ReadStatus status = ReadStatus.NotFound;
        byte[]? value = null;
        try
        {
            if (_cache.TryGet(key.Span, out byte[]? slot))
            {
                status = ReadStatus.Hit;
                value = ValueCache.ValueOf(slot).ToArray();
            }
            else
            {
                for (int attempt = 0; ; attempt++)
                {
                    if (!TryLocate(key.Span, out byte[]? storedKey, out RecordLocation location, out Segment? segment, ref status))
                    {
                        break;
                    }

                    int size = location.RecordSize;
                    byte[] buffer = ArrayPool<byte>.Shared.Rent(size);
                    try
                    {
                        int n;
                        FileReadStart(segment, location);
                        try
                        {
                            n = await segment.File.ReadAsync(buffer.AsMemory(0, size), location.Offset, ct).ConfigureAwait(false);
                        }
                        catch (ObjectDisposedException) when (attempt < RetiredSegmentRetries)
                        {
                            FileReadStop(0);
                            continue;
                        }

                        FileReadStop(n);
                        var sink = new ArraySink();
                        status = CompleteMiss(key.Span, storedKey, location, segment, buffer.AsSpan(0, n), ref sink);
                        value = sink.Value;
                        break;
                    }
                    finally
                    {
                        ArrayPool<byte>.Shared.Return(buffer);
                    }
                }
            }
        }
        finally
        {
            EndGet(scope, status, value?.Length ?? 0);
        }

        return status == ReadStatus.Corrupt ? throw CorruptKey(key.Length) : value;
    }

    private ReadStatus Read<TSink>(ReadOnlySpan<byte> key, ref TSink sink)
        where TSink : struct, IValueSink
    {
        RecordFormat.ValidateKey(key);
        ThrowIfDisposed();
        GetScope scope = BeginGet(key);
        ReadStatus status = ReadStatus.NotFound;
        int valueBytes = 0;
        try
        {
            if (_cache.TryGet(key, out byte[]? slot))
            {
                ReadOnlySpan<byte> value = ValueCache.ValueOf(slot);
                sink.Write(value);
                valueBytes = value.Length;
                status = ReadStatus.Hit;
            }
            else
            {
                status = ReadFromSegment(key, ref sink, out valueBytes);
            }
        }
        finally
        {
            EndGet(scope, status, valueBytes);
        }

        return status;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ReadStatus ReadFromSegment<TSink>(ReadOnlySpan<byte> key, ref TSink sink, out int valueBytes)
        where TSink : struct, IValueSink
    {
        valueBytes = 0;
        ReadStatus status = ReadStatus.NotFound;
        for (int attempt = 0; ; attempt++)
        {
            if (!TryLocate(key, out byte[]? storedKey, out RecordLocation location, out Segment? segment, ref status))
            {
                return status;
            }

            int size = location.RecordSize;
            byte[] buffer = ArrayPool<byte>.Shared.Rent(size);
            try
            {
                int n;
                FileReadStart(segment, location);
                try
                {
                    n = segment.File.Read(buffer.AsSpan(0, size), location.Offset);
                }
                catch (ObjectDisposedException) when (attempt < RetiredSegmentRetries)
                {
                    // Compaction retired the segment after we looked the key up; the index now points at the copy.
                    FileReadStop(0);
                    continue;
                }

                FileReadStop(n);
                status = CompleteMiss(key, storedKey, location, segment, buffer.AsSpan(0, n), ref sink);
                valueBytes = status == ReadStatus.Miss ? location.ValueLength : 0;
                return status;
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
    }

    /// <summary>Index lookup for a miss; false (with <paramref name="status"/> set) when there is nothing to read.</summary>
    private bool TryLocate(ReadOnlySpan<byte> key, [NotNullWhen(true)] out byte[]? storedKey, out RecordLocation location, [NotNullWhen(true)] out Segment? segment, ref ReadStatus status)
    {
        segment = null;
        for (int attempt = 0; attempt <= RetiredSegmentRetries; attempt++)
        {
            if (!_keyDir.TryGet(key, out storedKey, out location))
            {
                status = ReadStatus.NotFound;
                return false;
            }

            if (location.IsCorrupt)
            {
                status = ReadStatus.Corrupt;
                return false;
            }

            segment = _writer.Segments.Find(location.SegmentNumber);
            if (segment is not null)
            {
                return true;
            }

            // Compaction published the new segment set before moving this key: look again.
            Thread.Yield();
        }

        throw new InvalidOperationException($"The key directory of '{_directory}' points at a segment that is no longer open.");
    }

    /// <summary>Checks what a miss read and hands the value to the sink and the cache.</summary>
    private ReadStatus CompleteMiss<TSink>(ReadOnlySpan<byte> key, byte[] storedKey, RecordLocation location, Segment segment, ReadOnlySpan<byte> record, ref TSink sink)
        where TSink : struct, IValueSink
    {
        _telemetry.Read(record.Length);
        string? damage =
            record.Length < location.RecordSize ? "record cut short" :
            !RecordFormat.RecordIntact(record) ? "record checksum mismatch" :
            !RecordFormat.HeaderIntact(record[..(RecordFormat.HeaderSize + location.KeyLength)]) ? "header checksum mismatch" :
            !RecordFormat.TryReadLengths(record, int.MaxValue, out int keyLength, out int valueLength) || keyLength != location.KeyLength || valueLength != location.ValueLength ? "record lengths differ from the index" :
            !record.Slice(RecordFormat.HeaderSize, keyLength).SequenceEqual(key) ? "record holds a different key" :
            null;
        if (damage is not null)
        {
            if (TailDbEventSource.Log.StorageEnabled())
            {
                TailDbEventSource.Log.CorruptRecord(segment.Id, location.Offset, damage);
            }

            return ReadStatus.Corrupt;
        }

        ReadOnlySpan<byte> value = record.Slice(RecordFormat.HeaderSize + location.KeyLength, location.ValueLength);
        sink.Write(value);
        if (_cache.Enabled && _cache.Fits(location.KeyLength, location.ValueLength))
        {
            byte[]? slot = _cache.TryAdd(storedKey, value);
            if (slot is not null)
            {
                // A Put or Delete may have moved the key while we read; never leave an older value cached.
                if (!_keyDir.TryGet(key, out RecordLocation now) || now != location)
                {
                    _cache.Remove(storedKey, slot);
                }
                else
                {
                    _cache.EvictIfOver();
                }
            }
        }

        return ReadStatus.Miss;
    }

    private TailDbCorruptionException CorruptKey(int keyLength) =>
        new($"The latest record of a {keyLength}-byte key in '{_directory}' failed its checksum; its value is not returned.");

    private readonly record struct GetScope(bool Events, long Started, Activity? Activity);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private GetScope BeginGet(ReadOnlySpan<byte> key)
    {
        bool events = TailDbEventSource.Log.RequestsEnabled();
        if (events)
        {
            TailDbEventSource.Log.GetStart(key.Length, Crc32C.Compute(key));
        }

        return new GetScope(events, _telemetry.StartTimestamp(), _telemetry.StartActivity("TailDb.Get"));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void EndGet(GetScope scope, ReadStatus status, int valueBytes)
    {
        if (status == ReadStatus.Hit)
        {
            _telemetry.Hit();
        }
        else
        {
            _telemetry.Miss();
        }

        if (scope.Activity is not null)
        {
            scope.Activity.SetTag("taildb.status", StatusName(status));
            scope.Activity.Dispose();
        }

        _telemetry.RecordDuration(scope.Started, "get");
        if (scope.Events)
        {
            TailDbEventSource.Log.GetStop(status == ReadStatus.Hit, status is ReadStatus.Hit or ReadStatus.Miss, valueBytes);
        }
    }

    private static string StatusName(ReadStatus status) => status switch
    {
        ReadStatus.Hit => "hit",
        ReadStatus.Miss => "miss",
        ReadStatus.NotFound => "not_found",
        _ => "corrupt",
    };

    private static void FileReadStart(Segment segment, RecordLocation location)
    {
        if (TailDbEventSource.Log.StorageEnabled())
        {
            TailDbEventSource.Log.FileReadStart(segment.Id, location.Offset, location.RecordSize);
        }
    }

    private static void FileReadStop(int bytes)
    {
        if (TailDbEventSource.Log.StorageEnabled())
        {
            TailDbEventSource.Log.FileReadStop(bytes);
        }
    }
}
