using System.Diagnostics;
using TailDb.Diagnostics;

namespace TailDb.Storage;

/// <summary>
/// Merges every sealed segment into one: copies each record the key directory still points at,
/// writes a hint file beside it, makes every write so far durable (the ones that superseded what
/// it left out), commits by renaming (segment last, then fsync of the directory),
/// repoints the index, and deletes the inputs oldest first. A crash at any step leaves either the
/// old files (the .tmp outputs are deleted on open) or the new file superseding them.
/// </summary>
internal sealed class Compactor(IStorageDevice device, string directory, TailDbOptions options, SegmentWriter writer, KeyDir keyDir, ReaderEpoch epoch, StoreFault fault)
{
    private const int OutputBufferBytes = 1 << 20;

    /// <summary>
    /// Keys repointed per hold of the writer lock: the hold is bounded by this many index updates
    /// (two hash lookups each), whatever the store size; writers get the lock between batches.
    /// </summary>
    public const int RepointBatch = 1024;

    /// <summary>Preparations before sealing that a writer's own rotation may use up before compaction falls back to a slow rotation.</summary>
    private const int MaxSealAttempts = 3;

    /// <summary>Step in which a superseded input is cut down before it is unlinked.</summary>
    internal const int DeleteChunkBytes = 1 << 20;

    /// <summary>Pause between those steps, so successive steps land in different journal commits.</summary>
    private static readonly TimeSpan DeleteChunkPause = TimeSpan.FromMilliseconds(1);

    private readonly List<(byte[] Key, RecordLocation From, long Offset)> _moves = [];

    // The first design (upkeep on requests) copied at full speed on the caller, unpaced.
    private readonly IoRateLimiter? _limiter = options.Upkeep == UpkeepMode.OnRequest ? null : new IoRateLimiter(options.CompactionBytesPerSecond);
    private readonly CompactionPriority _priority = options.Upkeep == UpkeepMode.OnRequest ? CompactionPriority.Normal : options.CompactionPriority;
    private readonly byte[] _buffer = new byte[OutputBufferBytes];
    private int _buffered;
    private long _bufferStart;

    public CompactionResult Run()
    {
        List<Segment> inputs;
        long sealHold;

        // The pending seal's fsync and the spare, made here on compaction's thread, so that sealing
        // the active segment under the lock is a handle swap; a writer's rotation in between can
        // undo that (it made the spare active), so look again under the lock, a few times at most.
        for (int attempt = 1; ; attempt++)
        {
            writer.Prepare();
            lock (writer.WriteLock)
            {
                if (!writer.RotationIsSwapLocked() && attempt < MaxSealAttempts)
                {
                    continue;
                }

                long sealing = Stopwatch.GetTimestamp();
                fault.ThrowIfFaulted();
                writer.SealActiveLocked();
                Segment active = writer.Active;
                inputs = writer.Segments.Ordered.Where(s => s != active).ToList();
                sealHold = Stopwatch.GetTimestamp() - sealing;
                break;
            }
        }

        // The seal's fsync and the next spare, off the lock, before anything reads the inputs.
        writer.Prepare();

        // Nothing to reclaim: no sealed segment, or only an earlier compaction's output untouched since.
        if (inputs.Count == 0 || (inputs.Count == 1 && inputs[0].Generation > 0 && inputs[0].DeadBytes == 0))
        {
            return new CompactionResult(0, 0, 0, 0) { SealWriterLockHold = Stopwatch.GetElapsedTime(0, sealHold) };
        }

        var log = TailDbEventSource.Log;
        Guid compaction = log.CompactionEnabled() ? log.BeginCompaction(inputs.Count) : Guid.Empty;

        int id = inputs.Max(s => s.Id);
        int generation = inputs.Max(s => s.Generation) + 1;
        string segmentPath = Path.Combine(directory, Segment.FileName(id, generation));
        string hintPath = Path.Combine(directory, Segment.HintFileName(id, generation));
        long before = inputs.Sum(s => s.Length);
        if (before > KeyDir.MaxOffset)
        {
            throw new InvalidOperationException($"Compaction stopped: its output could exceed {KeyDir.MaxOffset + 1} bytes, the largest segment the key directory can address; the store's files are unchanged.");
        }

        // Taken before the commit point: running out of numbers must fail before anything changes.
        int number = writer.NextNumber();
        long copyStarted = Stopwatch.GetTimestamp();
        long after = UpkeepThread.Run(_priority, "TailDb compaction copy", () => Copy(inputs, segmentPath, hintPath), out CompactionPriority applied);
        TimeSpan copying = Stopwatch.GetElapsedTime(copyStarted);

        var output = new Segment(number, id, generation, device.Open(segmentPath, FileMode.Open, writable: false), after);
        // Add, repoint in batches, wait for readers, then remove: a reader finds a published segment
        // for every location it looks up, and no reader still reads a file when it is closed.
        long longestHold = 0;
        long started;
        lock (writer.WriteLock)
        {
            started = Stopwatch.GetTimestamp();
            writer.PublishLocked([output], []);
            longestHold = Math.Max(longestHold, Stopwatch.GetTimestamp() - started);
        }

        long live = 0;
        int batch = options.Upkeep == UpkeepMode.OnRequest ? int.MaxValue : RepointBatch;
        for (int first = 0; first < _moves.Count; first += batch)
        {
            int end = (int)Math.Min(_moves.Count, (long)first + batch);
            lock (writer.WriteLock)
            {
                started = Stopwatch.GetTimestamp();
                live += Repoint(output, first, end);
                longestHold = Math.Max(longestHold, Stopwatch.GetTimestamp() - started);
            }

            // Lets a writer woken by the release take the lock before the next batch barges in.
            Thread.Yield();
        }

        epoch.WaitForReaders();
        lock (writer.WriteLock)
        {
            started = Stopwatch.GetTimestamp();
            writer.PublishLocked([], inputs);
            longestHold = Math.Max(longestHold, Stopwatch.GetTimestamp() - started);
        }

        // No reader holds these files any more (see above), so they close now.
        foreach (Segment input in inputs)
        {
            input.Dispose();
        }

        UpkeepThread.Run(_priority, "TailDb compaction delete", () => DeleteInputs(inputs), out _);
        if (compaction != Guid.Empty && log.CompactionEnabled())
        {
            log.EndCompaction(compaction, live, before - after);
        }

        return new CompactionResult(inputs.Count, live, before, after)
        {
            LongestWriterLockHold = Stopwatch.GetElapsedTime(0, longestHold),
            SealWriterLockHold = Stopwatch.GetElapsedTime(0, sealHold),
            Priority = applied,
            Copying = copying,
            Throttled = _limiter?.Slept ?? TimeSpan.Zero,
        };
    }

    /// <summary>Repoints moves [first, end) to the output; caller holds the writer lock. Returns how many still pointed where we copied from.</summary>
    /// <summary>Writes the output and its hint file and commits them by renaming; runs at compaction's priority and holds no lock.</summary>
    private long Copy(List<Segment> inputs, string segmentPath, string hintPath)
    {
        try
        {
            long after = WriteOutput(inputs, segmentPath + Segment.TempSuffix, hintPath + Segment.TempSuffix);

            // The output leaves out every record a newer write superseded while it copied; once
            // committed, the inputs go. Make those newer writes durable first (Fsync or not: one
            // fsync per compaction), or a power loss takes both the old value and the new one.
            writer.MakeAppendedDurable();
            device.Move(hintPath + Segment.TempSuffix, hintPath);
            device.Move(segmentPath + Segment.TempSuffix, segmentPath); // the commit point
            device.FlushDirectory(directory);
            return after;
        }
        catch
        {
            DeleteQuietly(segmentPath + Segment.TempSuffix);
            DeleteQuietly(hintPath + Segment.TempSuffix);
            throw;
        }
    }

    /// <summary>
    /// Deletes the superseded inputs, oldest first. Paced, each file is first cut down in steps of
    /// <see cref="DeleteChunkBytes"/>: freeing (and, on a filesystem mounted with discard,
    /// trimming) tens of megabytes in one unlink lands in one journal commit that a request's
    /// fsync then waits for (RocksDB's DeleteScheduler truncates in chunks for the same reason).
    /// A crash midway leaves a shortened file that the committed output already supersedes, and
    /// the next open deletes it.
    /// </summary>
    /// <returns>How many files were deleted.</returns>
    private int DeleteInputs(List<Segment> inputs)
    {
        foreach (Segment input in inputs)
        {
            if (_limiter is not null && input.Length > DeleteChunkBytes)
            {
                using IStorageFile file = device.Open(input.File.Path, FileMode.Open, writable: true);
                for (long length = input.Length - DeleteChunkBytes; length > 0; length -= DeleteChunkBytes)
                {
                    file.SetLength(length);
                    Thread.Sleep(DeleteChunkPause);
                }
            }

            device.Delete(input.File.Path);
            DeleteQuietly(Path.Combine(directory, Segment.HintFileName(input.Id, input.Generation)));
        }

        device.FlushDirectory(directory);
        return inputs.Count;
    }

    private long Repoint(Segment output, int first, int end)
    {
        long live = 0;
        for (int i = first; i < end; i++)
        {
            (byte[] key, RecordLocation source, long offset) = _moves[i];
            if (keyDir.TryMove(key, source, source with { SegmentNumber = output.Number, Offset = offset }))
            {
                live++;
            }
            else
            {
                // Overwritten or deleted while we copied: the copy is garbage from the start.
                output.AddDead(source.RecordSize);
            }
        }

        return live;
    }

    private long WriteOutput(List<Segment> inputs, string tempSegment, string tempHint)
    {
        using IStorageFile output = Paced(device.Open(tempSegment, FileMode.CreateNew, writable: true), options.CompactionSyncBytes);
        // The hint carries each key's hash under the key directory's seed: the next open adopts it and hashes nothing.
        using var hint = new HintFile.Writer(Paced(device.Open(tempHint, FileMode.CreateNew, writable: true), options.CompactionSyncBytes), keyDir.Seed);
        SegmentWriter.WriteFileHeader(output);
        _bufferStart = RecordFormat.FileHeaderSize;
        foreach (Segment input in inputs)
        {
            var scanner = new SegmentScanner(Paced(input.File, syncBytes: 0), input.Length, options.MaxValueBytes);
            long offset = RecordFormat.FileHeaderSize;
            while (true)
            {
                ScanOutcome outcome = scanner.Next(offset, out ScannedRecord record);
                if (outcome == ScanOutcome.End)
                {
                    break;
                }

                if (outcome == ScanOutcome.HeaderCorrupt)
                {
                    throw new TailDbCorruptionException($"Compaction stopped: the TailDb segment file '{input.File.Path}' is corrupt at offset {offset} ({record.Damage}); the store's files are unchanged.");
                }

                if (outcome == ScanOutcome.Record && !record.IsTombstone
                    && keyDir.TryGet(record.Key, out RecordLocation location)
                    && location == new RecordLocation(input.Number, offset, record.Key.Length, record.ValueLength))
                {
                    long newOffset = Append(output, record.Record);
                    _moves.Add((record.Key.ToArray(), location, newOffset));
                }

                // A damaged value is dropped: its key already reads as Corrupt, and there is nothing true to copy.
                offset += record.Size;
                if (record.Size == 0 || offset > input.Length)
                {
                    break;
                }
            }
        }

        Span<byte> seal = stackalloc byte[RecordFormat.SealSize];
        RecordFormat.WriteSeal(seal, _bufferStart + _buffered);
        Append(output, seal);
        FlushBuffer(output);
        output.Flush();
        WriteHintInHashOrder(hint);
        hint.Complete(_bufferStart);
        return _bufferStart;
    }

    /// <summary>
    /// The hint's entries in ascending order of their keys' hashes (unsigned), each key's hash
    /// under the key directory's seed: the next open places them front to back through its table
    /// as it reads them (<see cref="KeyDir.BeginBulkLoad(int, bool)"/>). Sorting 8-byte words
    /// (hash, move index) costs compaction, which runs in the background, what the open saves.
    /// </summary>
    private void WriteHintInHashOrder(HintFile.Writer hint)
    {
        // Each word is (hash, index) with the sign bit flipped, so the default signed sort orders the hashes as unsigned numbers.
        long[] order = GC.AllocateUninitializedArray<long>(_moves.Count);
        for (int i = 0; i < order.Length; i++)
        {
            order[i] = (long)(((ulong)(uint)keyDir.Hash(_moves[i].Key) << 32) | (uint)i) ^ long.MinValue;
        }

        Array.Sort(order);
        foreach (long flipped in order)
        {
            long word = flipped ^ long.MinValue;
            (byte[] key, RecordLocation from, long offset) = _moves[(int)(uint)word];
            hint.Add(key, (int)(word >>> 32), offset, from.ValueLength);
        }
    }

    private long Append(IStorageFile output, ReadOnlySpan<byte> record)
    {
        if (_buffered + record.Length > _buffer.Length)
        {
            FlushBuffer(output);
        }

        long offset = _bufferStart + _buffered;
        if (record.Length > _buffer.Length)
        {
            output.Write(record, offset);
            _bufferStart += record.Length;
            return offset;
        }

        record.CopyTo(_buffer.AsSpan(_buffered));
        _buffered += record.Length;
        return offset;
    }

    private void FlushBuffer(IStorageFile output)
    {
        output.Write(_buffer.AsSpan(0, _buffered), _bufferStart);
        _bufferStart += _buffered;
        _buffered = 0;
    }

    /// <summary>The file read or written through the rate limiter, or as it is when upkeep runs on requests (the first design had no pacing).</summary>
    private IStorageFile Paced(IStorageFile file, long syncBytes) => _limiter is null ? file : new PacedFile(file, _limiter, syncBytes);

    private void DeleteQuietly(string path)
    {
        try
        {
            if (File.Exists(path))
            {
                device.Delete(path);
            }
        }
        catch (IOException)
        {
            // Best effort: a leftover .tmp is deleted on the next open, a stale hint fails its checks.
        }
    }
}
