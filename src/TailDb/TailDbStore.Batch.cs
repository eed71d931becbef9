using System.Buffers;
using TailDb.Caching;
using TailDb.Diagnostics;
using TailDb.Storage;

namespace TailDb;

public sealed partial class TailDbStore
{
    /// <summary>
    /// Writes <paramref name="puts"/> in order, under one hold of the writer lock and with one
    /// positional write per run (a run ends only where a segment rotates, at a put that is not
    /// written, or before a conditional put), and reports each put's outcome in
    /// <paramref name="statuses"/> before it returns: a pipeline of SETs costs one lock and one
    /// syscall, not one each.
    /// <para>
    /// A condition is decided under the lock and sees every put before it, this batch's included.
    /// A put the store refuses (<see cref="PutStatus.Invalid"/>) or whose condition fails is
    /// skipped; the others are written. If a write fails midway, the puts written before it stay
    /// <see cref="PutStatus.Written"/> and it and every later put are <see cref="PutStatus.Faulted"/>.
    /// </para>
    /// <para>
    /// The returned task completes when every written put is durable per
    /// <see cref="TailDbOptions.Durability"/>: at once with None (no task, no allocation), after
    /// one group commit with Fsync. If that fsync fails it throws
    /// <see cref="TailDbFaultedException"/>, and none of the batch's puts may be acknowledged.
    /// </para>
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="statuses"/> is shorter than <paramref name="puts"/>.</exception>
    public ValueTask PutBatchAsync(ReadOnlySpan<BatchPut> puts, Span<PutStatus> statuses, CancellationToken ct = default) =>
        PutBatchAsync(puts, statuses, parents: default, ct);

    /// <summary>
    /// <see cref="PutBatchAsync(ReadOnlySpan{BatchPut}, Span{PutStatus}, CancellationToken)"/>, each
    /// put's Put activity nested in <paramref name="parents"/>[i] rather than in the calling
    /// thread's activity: a server that batches pipelined SETs, each its own traced command, keeps
    /// every Put inside its own command (an empty id or an empty span: the thread's activity).
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="statuses"/> is shorter than <paramref name="puts"/>, or <paramref name="parents"/> is neither empty nor as long.</exception>
    public ValueTask PutBatchAsync(ReadOnlySpan<BatchPut> puts, Span<PutStatus> statuses, ReadOnlySpan<Guid> parents, CancellationToken ct = default)
    {
        if (statuses.Length < puts.Length)
        {
            throw new ArgumentException($"{puts.Length} puts need as many statuses; {statuses.Length} were given.", nameof(statuses));
        }

        if (!parents.IsEmpty && parents.Length < puts.Length)
        {
            throw new ArgumentException($"{puts.Length} puts need as many parent activities, or none; {parents.Length} were given.", nameof(parents));
        }

        ThrowIfNotWritable();
        if (puts.IsEmpty)
        {
            return default;
        }

        if (_fault.IsFaulted)
        {
            statuses[..puts.Length].Fill(PutStatus.Faulted);
            return default;
        }

        int bytes = EncodedSize(puts, statuses);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(Math.Max(bytes, 1));
        int[] ends = ArrayPool<int>.Shared.Rent(puts.Length);
        // One rental for both hashes of each put: the key directory's, then the cache's.
        int[] hashes = ArrayPool<int>.Shared.Rent(2 * puts.Length);
        Span<int> dirHashes = hashes.AsSpan(0, puts.Length), cacheHashes = hashes.AsSpan(puts.Length, puts.Length);
        Guid[]? requests = _telemetry.RequestEvents() ? ArrayPool<Guid>.Shared.Rent(puts.Length) : null;
        bool requestsHandedOff = false;
        long started = _telemetry.StartTimestamp();
        try
        {
            Encode(puts, statuses, buffer, ends, dirHashes, requests, parents);
            _keyDir.Prefetch(dirHashes);
            _cache.Prefetch(puts, cacheHashes);
            long sequence;
            int written;
            lock (_writer.WriteLock)
            {
                ThrowIfDisposed();
                written = AppendBatchLocked(puts, statuses, buffer, ends, dirHashes, cacheHashes, out sequence);
            }

            if (written > 0)
            {
                _telemetry.Written(written);
                _cache.WakeEvictorIfOver();
            }

            ValueTask durable = written > 0 && _groupCommit is not null
                ? _groupCommit.WaitDurableAsync(sequence, requests?[0] ?? Guid.Empty, ct)
                : default;
            if (requests is null && started == 0)
            {
                return durable;
            }

            if (durable.IsCompletedSuccessfully)
            {
                // Durable already (None, or nothing written): the Stops now, with nothing allocated for them.
                durable.GetAwaiter().GetResult();
                EndBatch(puts, statuses, requests, started);
                return default;
            }

            requestsHandedOff = true;
            return EndBatchAsync(durable, requests, WrittenSizes(puts, statuses), started);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
            ArrayPool<int>.Shared.Return(ends);
            ArrayPool<int>.Shared.Return(hashes);
            if (requests is not null && !requestsHandedOff)
            {
                ArrayPool<Guid>.Shared.Return(requests);
            }
        }
    }

    /// <summary>Marks the puts the store refuses as Invalid (the rest Written, for now); returns the bytes the others encode to.</summary>
    private int EncodedSize(ReadOnlySpan<BatchPut> puts, Span<PutStatus> statuses)
    {
        long bytes = 0;
        for (int i = 0; i < puts.Length; i++)
        {
            BatchPut put = puts[i];
            bool valid = (uint)(put.Key.Length - 1) < RecordFormat.MaxKeyBytes && put.Value.Length <= _options.MaxValueBytes;
            statuses[i] = valid ? PutStatus.Written : PutStatus.Invalid;
            bytes += valid ? RecordFormat.RecordSize(put.Key.Length, put.Value.Length) : 0;
        }

        return bytes <= Array.MaxLength
            ? (int)bytes
            : throw new ArgumentException($"A batch encodes to at most {Array.MaxLength} bytes; this one to {bytes}.", nameof(puts));
    }

    /// <summary>
    /// Outside the lock: every valid put's record end to end in <paramref name="buffer"/> (put i
    /// ends at ends[i]; a skipped put takes no bytes), its key's hash in the key directory (the
    /// seed is fixed once the store is open, so it need not be computed under the lock), and its
    /// Start event.
    /// </summary>
    private void Encode(ReadOnlySpan<BatchPut> puts, ReadOnlySpan<PutStatus> statuses, byte[] buffer, int[] ends, Span<int> dirHashes, Guid[]? requests, ReadOnlySpan<Guid> parents)
    {
        int at = 0;
        Guid parent = requests is null ? Guid.Empty : TailDbEventSource.CurrentParent();
        for (int i = 0; i < puts.Length; i++)
        {
            if (statuses[i] == PutStatus.Written)
            {
                ReadOnlySpan<byte> key = puts[i].Key.Span;
                ReadOnlySpan<byte> value = puts[i].Value.Span;
                at += RecordFormat.Write(buffer.AsSpan(at), key, value, tombstone: false);
                dirHashes[i] = _keyDir.Hash(key);
                if (requests is not null)
                {
                    requests[i] = TailDbEventSource.NewActivityId();
                    Guid own = parents.IsEmpty ? Guid.Empty : parents[i];
                    TailDbEventSource.Log.PutStart(requests[i], own == Guid.Empty ? parent : own, key.Length, KeyHash.Of(key), value.Length);
                }
            }
            else if (requests is not null)
            {
                requests[i] = Guid.Empty; // a rented array: no Start, so no Stop
            }

            ends[i] = at;
        }
    }

    /// <summary>Appends the batch's runs and indexes them, in order; returns the bytes written.</summary>
    private int AppendBatchLocked(ReadOnlySpan<BatchPut> puts, Span<PutStatus> statuses, byte[] buffer, int[] ends, ReadOnlySpan<int> dirHashes, ReadOnlySpan<int> cacheHashes, out long sequence)
    {
        int written = 0;
        int i = 0;
        while (i < puts.Length)
        {
            if (statuses[i] != PutStatus.Written)
            {
                i++;
                continue;
            }

            if (!ConditionHolds(puts[i], dirHashes[i]))
            {
                statuses[i] = PutStatus.ConditionNotMet;
                i++;
                continue;
            }

            // The run: puts i..j-1, contiguous in the buffer; a conditional put starts a run of its
            // own, so its check sees the puts before it indexed.
            int start = i == 0 ? 0 : ends[i - 1];
            long room = _writer.RoomForRunLocked(ends[i] - start);
            int j = i + 1;
            while (j < puts.Length && statuses[j] == PutStatus.Written && puts[j].Condition == PutCondition.Always && ends[j] - start <= room)
            {
                j++;
            }

            RecordLocation first;
            try
            {
                first = _writer.AppendRunLocked(buffer.AsSpan(start, ends[j - 1] - start), j - i);
            }
            catch (TailDbFaultedException)
            {
                // The store is faulted now (the write or a rotation failed); nothing from here on is written.
                MarkFaulted(statuses[i..puts.Length]);
                break;
            }

            // From the run's key directory changes to its cache changes, no fill may be published and
            // no hit may copy a value they supersede (ValueCache.OpenWrite): one open and one fence for
            // the run, then each key's slot marked.
            if (_cache.OpenWrites())
            {
                for (int k = i; k < j; k++)
                {
                    _cache.MarkAfterFence(puts[k].Key.Span, cacheHashes[k]);
                }
            }

            try
            {
                for (int k = i; k < j; k++)
                {
                    int recordStart = k == 0 ? 0 : ends[k - 1];
                    var location = new RecordLocation(first.SegmentNumber, first.Offset + recordStart - start, puts[k].Key.Length, puts[k].Value.Length);
                    _keyDir.Set(puts[k].Key.Span, dirHashes[k], location, out RecordLocation previous);
                    _writer.Segments.Supersede(previous);
                }

                UpdateCacheRun(puts[i..j], cacheHashes[i..j]);
            }
            finally
            {
                _cache.CloseWrites();
            }

            written += ends[j - 1] - start;
            i = j;
        }

        sequence = _writer.Sequence;
        return written;
    }

    private bool ConditionHolds(in BatchPut put, int hash) =>
        put.Condition == PutCondition.Always || _keyDir.TryGet(put.Key.Span, hash, out _) == (put.Condition == PutCondition.IfPresent);

    /// <summary>
    /// Under the writer lock, after the run's key directory changes: what each put leaves in the
    /// cache, in order. The fence that orders a key's directory change before its slot's state is
    /// read is issued once for the run, not per put: each key's change still precedes the fence,
    /// and the fence its slot's change.
    /// </summary>
    private void UpdateCacheRun(ReadOnlySpan<BatchPut> run, ReadOnlySpan<int> cacheHashes)
    {
        if (!_cache.Enabled)
        {
            return;
        }

        Interlocked.MemoryBarrier();
        for (int k = 0; k < run.Length; k++)
        {
            UpdateCacheAfterFence(run[k].Key.Span, cacheHashes[k], run[k].Value.Span);
        }
    }

    private static void MarkFaulted(Span<PutStatus> statuses)
    {
        foreach (ref PutStatus status in statuses)
        {
            if (status != PutStatus.Invalid)
            {
                status = PutStatus.Faulted;
            }
        }
    }

    /// <summary>Each put's record size if it was written, else 0 (its Stop event's payload).</summary>
    private static int[] WrittenSizes(ReadOnlySpan<BatchPut> puts, ReadOnlySpan<PutStatus> statuses)
    {
        int[] sizes = new int[puts.Length];
        for (int i = 0; i < puts.Length; i++)
        {
            sizes[i] = WrittenSize(puts[i], statuses[i]);
        }

        return sizes;
    }

    /// <summary>The bytes a put's record took in the log: its PutStop's payload (0 when it was not written).</summary>
    private static int WrittenSize(in BatchPut put, PutStatus status) =>
        status == PutStatus.Written ? RecordFormat.RecordSize(put.Key.Length, put.Value.Length) : 0;

    /// <summary>One put of a durable batch: its Stop, if it started, and its duration.</summary>
    private void EndPut(Guid[]? requests, int i, int size, long started)
    {
        if (requests is not null && requests[i] != Guid.Empty)
        {
            TailDbEventSource.Log.WriteStop(requests[i], TailDbEventSource.EventIds.PutStop, size);
        }

        _telemetry.RecordDuration(started, "put");
    }

    /// <summary>With request events or the duration metric on, a batch already durable: each put's Stop and duration.</summary>
    private void EndBatch(ReadOnlySpan<BatchPut> puts, ReadOnlySpan<PutStatus> statuses, Guid[]? requests, long started)
    {
        for (int i = 0; i < puts.Length; i++)
        {
            EndPut(requests, i, WrittenSize(puts[i], statuses[i]), started);
        }
    }

    /// <summary>As <see cref="EndBatch"/>, once the batch is durable (a group commit); gives <paramref name="requests"/> back to the pool.</summary>
    private async ValueTask EndBatchAsync(ValueTask durable, Guid[]? requests, int[] sizes, long started)
    {
        try
        {
            await durable.ConfigureAwait(false);
        }
        finally
        {
            for (int i = 0; i < sizes.Length; i++)
            {
                EndPut(requests, i, sizes[i], started);
            }

            if (requests is not null)
            {
                ArrayPool<Guid>.Shared.Return(requests);
            }
        }
    }
}
