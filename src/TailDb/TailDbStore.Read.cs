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
    /// <summary>
    /// Writes the value of <paramref name="key"/> into <paramref name="destination"/>. Allocates
    /// nothing on a cache hit. Returns <see cref="ReadStatus.Corrupt"/> (and writes nothing) when the
    /// key's record fails its checksum, <see cref="ReadStatus.IoError"/> when the device fails the read.
    /// </summary>
    public ReadStatus TryGet(ReadOnlySpan<byte> key, IBufferWriter<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);

        // The hit path nobody observes: one lookup and one copy (the benchmark budget is 1.2x a
        // bare dictionary lookup + copy). Anything observed, missed or disposed takes the full path.
        // The key is validated there (Read): only a valid key can be in the cache, so an empty or
        // oversized one always misses first.
        var sink = new BufferWriterSink(destination);
        if (!_disposed && !_telemetry.Observed() && _cache.TryGet(key, out byte[]? slot) && sink.TryWriteCached(slot))
        {
            return ReadStatus.Hit;
        }

        return Read(key, ref sink);
    }

    /// <summary>Whether the key has a value (a corrupt one counts): one index lookup, no read, no event.</summary>
    public bool ContainsKey(ReadOnlySpan<byte> key)
    {
        RecordFormat.ValidateKey(key);
        ThrowIfDisposed();
        return _keyDir.TryGet(key, out RecordLocation _);
    }

    /// <summary>
    /// The status form of <see cref="Get(ReadOnlySpan{byte})"/>: never throws for a corrupt record
    /// or a failed device read; <paramref name="value"/> is set only for Hit and Miss.
    /// </summary>
    public ReadStatus TryGet(ReadOnlySpan<byte> key, out byte[]? value)
    {
        var sink = new ArraySink();
        ReadStatus status = Read(key, ref sink);
        value = sink.Value;
        return status;
    }

    public ReadStatus TryGet(string key, out byte[]? value)
    {
        using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes]);
        return TryGet(utf8.Bytes, out value);
    }

    /// <summary>The value as a new array, or null if absent.</summary>
    /// <exception cref="TailDbCorruptionException">The key's record failed its checksum.</exception>
    /// <exception cref="TailDbReadException">The device failed this read (the store stays usable).</exception>
    public byte[]? Get(ReadOnlySpan<byte> key) => ValueOrThrow(TryGet(key, out byte[]? value), value, key.Length);

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
        GetResult result = await TryGetAsync(key, ct).ConfigureAwait(false);
        return ValueOrThrow(result.Status, result.Value, key.Length);
    }

    /// <summary>The status form of <see cref="GetAsync"/>: Corrupt and IoError are returned, not thrown.</summary>
    public async ValueTask<GetResult> TryGetAsync(ReadOnlyMemory<byte> key, CancellationToken ct = default)
    {
        RecordFormat.ValidateKey(key.Span);
        ThrowIfDisposed();
        GetScope scope = BeginGet(key.Span);
        var sink = new ArraySink();
        ReadStatus status = ReadStatus.NotFound;
        try
        {
            status = Lookup(key.Span, ref sink, out PendingRead pending, out _);
            if (pending.Segment is not null)
            {
                byte[] buffer = ArrayPool<byte>.Shared.Rent(pending.Location.RecordSize);
                try
                {
                    Guid fileRead = FileReadStart(scope.RequestId, pending.Segment, pending.Location);
                    int n;
                    try
                    {
                        n = await pending.Segment.File.ReadAsync(buffer.AsMemory(0, pending.Location.RecordSize), pending.Location.Offset, ct).ConfigureAwait(false);
                    }
                    catch (IOException error)
                    {
                        n = -1;
                        status = ReadFailed(pending, fileRead, error);
                    }

                    if (n >= 0)
                    {
                        status = FinishMiss(key.Span, pending, fileRead, buffer.AsSpan(0, n), ref sink);
                    }
                }
                finally
                {
                    _epoch.Exit(pending.Guard);
                    ArrayPool<byte>.Shared.Return(buffer);
                }
            }
        }
        finally
        {
            EndGet(scope, status, sink.Value?.Length ?? 0);
        }

        return new GetResult(status, sink.Value);
    }

    private byte[]? ValueOrThrow(ReadStatus status, byte[]? value, int keyLength) => status switch
    {
        ReadStatus.Hit or ReadStatus.Miss => value,
        ReadStatus.NotFound => null,
        ReadStatus.IoError => throw ReadError(keyLength),
        _ => throw CorruptKey(keyLength),
    };

    /// <summary>The one read body of Get and TryGet; GetAsync runs the same steps with an awaited file read.</summary>
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
            status = Lookup(key, ref sink, out PendingRead pending, out valueBytes);
            if (pending.Segment is not null)
            {
                status = ReadFromSegment(key, pending, scope.RequestId, ref sink);
                valueBytes = status == ReadStatus.Miss ? pending.Location.ValueLength : 0;
            }
        }
        finally
        {
            EndGet(scope, status, valueBytes);
        }

        return status;
    }

    /// <summary>
    /// What a miss must read, found under reader protection: the segment's file stays open until
    /// the reader exits <see cref="_epoch"/> (compaction waits for that before closing it).
    /// </summary>
    private readonly record struct PendingRead(RecordLocation Location, Segment? Segment, ReaderEpoch.Guard Guard);

    /// <summary>
    /// Cache, then index. A hit is written to the sink; a miss with a record to read returns a
    /// <paramref name="pending"/> read with a segment (and the reader protection held); anything
    /// else is final.
    /// </summary>
    private ReadStatus Lookup<TSink>(ReadOnlySpan<byte> key, ref TSink sink, out PendingRead pending, out int hitBytes)
        where TSink : struct, IValueSink
    {
        pending = default;
        if (_cache.TryGet(key, out byte[]? slot) && sink.TryWriteCached(slot))
        {
            hitBytes = ValueCache.ValueLength(slot);
            return ReadStatus.Hit;
        }

        hitBytes = 0;

        ReaderEpoch.Guard guard = _epoch.Enter();
        ReadStatus status = ReadStatus.NotFound;
        if (_disposed)
        {
            _epoch.Exit(guard);
            ThrowIfDisposed();
        }

        if (_keyDir.TryGet(key, out RecordLocation location))
        {
            if (location.IsCorrupt)
            {
                status = ReadStatus.Corrupt;
            }
            else
            {
                // Always found: a key points only at published segments, and a retired one is
                // unpublished only after every reader that could have seen its locations has left.
                Segment segment = _writer.Segments.Find(location.SegmentNumber) ?? throw UnpublishedSegment(location);
                pending = new PendingRead(location, segment, guard);
                return ReadStatus.Miss;
            }
        }

        _epoch.Exit(guard);
        return status;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ReadStatus ReadFromSegment<TSink>(ReadOnlySpan<byte> key, PendingRead pending, Guid request, ref TSink sink)
        where TSink : struct, IValueSink
    {
        int size = pending.Location.RecordSize;
        byte[] buffer = ArrayPool<byte>.Shared.Rent(size);
        try
        {
            Guid fileRead = FileReadStart(request, pending.Segment!, pending.Location);
            int n;
            try
            {
                n = pending.Segment!.File.Read(buffer.AsSpan(0, size), pending.Location.Offset);
            }
            catch (IOException error)
            {
                return ReadFailed(pending, fileRead, error);
            }

            return FinishMiss(key, pending, fileRead, buffer.AsSpan(0, n), ref sink);
        }
        finally
        {
            _epoch.Exit(pending.Guard);
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private ReadStatus FinishMiss<TSink>(ReadOnlySpan<byte> key, PendingRead pending, Guid fileRead, ReadOnlySpan<byte> record, ref TSink sink)
        where TSink : struct, IValueSink
    {
        FileReadStop(fileRead, record.Length);
        return CompleteMiss(key, pending.Location, pending.Segment!, record, ref sink);
    }

    /// <summary>
    /// A device error (EIO) fails this read only: nothing is cached, the store is not faulted (a
    /// write fault is final because the kernel may have dropped pages; a failed read changed nothing).
    /// </summary>
    private static ReadStatus ReadFailed(PendingRead pending, Guid fileRead, IOException error)
    {
        FileReadStop(fileRead, 0);
        if (TailDbEventSource.Log.StorageEnabled())
        {
            TailDbEventSource.Log.ReadFailed(pending.Segment!.Id, pending.Location.Offset, error.Message);
        }

        return ReadStatus.IoError;
    }

    private InvalidOperationException UnpublishedSegment(RecordLocation location) =>
        new($"The key directory of '{_directory}' points at segment {location.SegmentNumber}, which is not open (a bug: retirement must wait for readers).");

    /// <summary>Checks what a miss read and hands the value to the sink and the cache.</summary>
    private ReadStatus CompleteMiss<TSink>(ReadOnlySpan<byte> key, RecordLocation location, Segment segment, ReadOnlySpan<byte> record, ref TSink sink)
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
            byte[]? slot = _cache.TryAddPending(key, value);
            if (slot is not null)
            {
                // A Put or Delete may have moved the key while we read: publish only a value the
                // key still points at (a writer that moves it later replaces or removes the slot),
                // and none while a write is between its key directory and cache changes (a reader
                // may have read the new value from the log already; ValueCache.OpenWrite).
                if (_cache.WriteInFlight || !_keyDir.TryGet(key, out RecordLocation now) || now != location)
                {
                    _cache.Remove(key, slot);
                }
                else
                {
                    ValueCache.Publish(slot);
                    _cache.WakeEvictorIfOver();
                }
            }
        }

        return ReadStatus.Miss;
    }

    private TailDbReadException ReadError(int keyLength) =>
        new($"The device failed the read of a {keyLength}-byte key's record in '{_directory}' (an I/O error); only this read failed, the store stays usable (ReadFailed event, or TryGet's ReadStatus.IoError).");

    private TailDbCorruptionException CorruptKey(int keyLength) =>
        new($"The latest record of a {keyLength}-byte key in '{_directory}' failed its checksum; its value is not returned.");

    /// <summary>A Get in flight: its event activity id (empty when request events are off), start time and System.Diagnostics.Activity.</summary>
    private readonly record struct GetScope(Guid RequestId, long Started, Activity? Activity);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private GetScope BeginGet(ReadOnlySpan<byte> key)
    {
        Guid request = Guid.Empty;
        if (_telemetry.RequestEvents())
        {
            request = TailDbEventSource.NewActivityId();
            TailDbEventSource.Log.GetStart(request, TailDbEventSource.CurrentParent(), key.Length, KeyHash.Of(key));
        }

        return new GetScope(request, _telemetry.StartTimestamp(), _telemetry.StartActivity("TailDb.Get"));
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
        if (scope.RequestId != Guid.Empty)
        {
            TailDbEventSource.Log.GetStop(scope.RequestId, status == ReadStatus.Hit, status is ReadStatus.Hit or ReadStatus.Miss, valueBytes);
        }
    }

    private static string StatusName(ReadStatus status) => status switch
    {
        ReadStatus.Hit => "hit",
        ReadStatus.Miss => "miss",
        ReadStatus.NotFound => "not_found",
        ReadStatus.IoError => "io_error",
        _ => "corrupt",
    };

    /// <summary>Returns the FileRead's activity id for its Stop (empty when storage events are off).</summary>
    private Guid FileReadStart(Guid request, Segment segment, RecordLocation location) =>
        _telemetry.StorageEvents()
            ? TailDbEventSource.Log.FileReadStart(request, segment.Id, location.Offset, location.RecordSize)
            : Guid.Empty;

    private static void FileReadStop(Guid fileRead, int bytes)
    {
        if (fileRead != Guid.Empty && TailDbEventSource.Log.StorageEnabled())
        {
            TailDbEventSource.Log.WriteStop(fileRead, TailDbEventSource.EventIds.FileReadStop, bytes);
        }
    }
}
