using System.Buffers.Binary;
using TailDb.Diagnostics;

namespace TailDb.Storage;

/// <summary>
/// Opening a directory: finish or roll back an interrupted compaction, then rebuild the key
/// directory from hint files where they are intact and by scanning segments otherwise.
/// Damage policy (never return a wrong value):
/// - newest segment, nothing intact after the damage: a torn tail; cut it off (TailTruncated);
/// - the segment before the newest without its seal (or torn as above): a rotation's seal fsync,
///   which runs after the writer lock is released, was cut short, so nothing after it was
///   acknowledged as durable; cut the tail there and the newest segment whole (TailTruncated);
/// - header intact but value damaged: the key is known; it reads as Corrupt (CorruptRecord);
/// - header damaged with intact records after it, or in an older segment: the lost record's key
///   is unknown, so an older value of it could resurface; refuse to open, naming file and offset.
/// Files after the newest records that hold only a header (spares made ahead of need) are deleted,
/// except one kept as the active segment when the newest records end sealed.
/// </summary>
internal sealed class Recovery
{
    private readonly IStorageDevice _device;
    private readonly string _directory;
    private readonly TailDbOptions _options;
    private readonly KeyDir _keyDir;
    private readonly List<TailTruncation> _truncations = [];
    private readonly List<CorruptRecordInfo> _corrupt = [];
    private long _records;
    private int _hintsUsed;
    private int _leftovers;
    private int _lastNumber;
    private SegmentSet _scanned = SegmentSet.Empty;

    private Recovery(IStorageDevice device, string directory, TailDbOptions options, KeyDir keyDir)
    {
        _device = device;
        _directory = directory;
        _options = options;
        _keyDir = keyDir;
    }

    public static (SegmentSet Segments, int LastNumber, RecoveryReport Report) Run(IStorageDevice device, string directory, TailDbOptions options, KeyDir keyDir)
    {
        var recovery = new Recovery(device, directory, options, keyDir);
        SegmentSet segments = recovery.Open();
        var report = new RecoveryReport
        {
            Segments = segments.Ordered.Count,
            Records = recovery._records,
            HintFilesUsed = recovery._hintsUsed,
            TailTruncations = recovery._truncations,
            CorruptRecords = recovery._corrupt,
            LeftoverFilesRemoved = recovery._leftovers,
        };
        return (segments, recovery._lastNumber, report);
    }

    private bool Writable => !_options.ReadOnly;

    private SegmentSet Open()
    {
        if (Writable)
        {
            foreach (string temp in Directory.EnumerateFiles(_directory, "*" + Segment.TempSuffix))
            {
                _device.Delete(temp);
                _leftovers++;
            }
        }

        var names = new List<(int Id, int Generation)>();
        foreach (string path in Directory.EnumerateFiles(_directory, "*" + Segment.Extension))
        {
            if (Segment.TryParseName(Path.GetFileName(path), out int id, out int generation))
            {
                names.Add((id, generation));
            }
        }

        names.Sort();

        // A compacted file (b, G) replaces every file with id <= b and a lower generation. Delete
        // the replaced ones oldest first: a tombstone then outlives the values it hides.
        var live = names.Where(f => !names.Any(g => g.Generation > f.Generation && g.Id >= f.Id)).ToList();
        foreach ((int id, int generation) in names.Except(live))
        {
            if (Writable)
            {
                _device.Delete(Path.Combine(_directory, Segment.FileName(id, generation)));
                DeleteIfExists(Path.Combine(_directory, Segment.HintFileName(id, generation)));
                _leftovers++;
            }
        }

        var opened = new List<Segment>();
        try
        {
            OpenLog(live, opened);
        }
        catch
        {
            foreach (Segment s in opened)
            {
                s.Dispose();
            }

            throw;
        }

        return SegmentSet.Empty.With(opened, []);
    }

    /// <summary>
    /// Opens the live files in replay order into <paramref name="opened"/>. The files after the
    /// newest one holding records hold at most a header: a spare the writer made ahead of need, or
    /// an active segment nothing was written to. The first of them stays, as the active segment,
    /// if the newest records end sealed; the others are deleted (writing goes on in an unsealed
    /// newest segment, as before spares existed).
    /// </summary>
    private void OpenLog(List<(int Id, int Generation)> live, List<Segment> opened)
    {
        int newest = live.FindLastIndex(HoldsRecords);

        // A rotation fsyncs the segment it sealed after releasing the writer lock, so a power loss
        // can leave the segment before the newest without its seal; nothing written after it was
        // then acknowledged as durable (a group-commit leader fsyncs it first), so the log ends there.
        bool sealLost = false;
        bool newestSealed = true;
        int end = newest + 1;
        for (int i = 0; i <= newest; i++)
        {
            (int id, int generation) = live[i];
            if (i == newest && sealLost)
            {
                DropWrittenAfterALostSeal(id, generation);
                end = newest;
                break;
            }

            bool sealingBeforeNewest = i == newest - 1 && generation == 0 && live[newest].Generation == 0;
            (Segment segment, bool isSealed) = OpenSegment(id, generation, mayEndTheLog: i == newest || sealingBeforeNewest);
            opened.Add(segment);

            newestSealed = isSealed;
            sealLost = sealingBeforeNewest && !isSealed;
        }

        if (Writable)
        {
            // A process killed while a seal's fsync was pending left that segment in the page cache
            // only, and group commits from now on fsync only newer files: make the newest two durable.
            foreach (Segment segment in opened.TakeLast(2).Where(s => s.Generation == 0))
            {
                segment.File.Flush();
            }
        }

        if ((opened.Count == 0 || newestSealed) && !sealLost && end < live.Count)
        {
            opened.Add(OpenSegment(live[end].Id, live[end].Generation, mayEndTheLog: true).Segment);
            end++;
        }

        DeleteFrom(live, end, cutWhole: sealLost ? 1 : 0);
        if (opened.Count == 0)
        {
            if (!Writable)
            {
                throw new TailDbCorruptionException($"The directory '{_directory}' holds no TailDb segment files to open read-only.");
            }

            opened.Add(SegmentWriter.CreateSegment(_device, _directory, 1, 0, ++_lastNumber, durable: true));
        }
    }

    private long FileLength((int Id, int Generation) file) => new FileInfo(Path.Combine(_directory, Segment.FileName(file.Id, file.Generation))).Length;

    /// <summary>
    /// Whether anything was written after the file's header: a spare the writer prefilled with
    /// zeros (<see cref="SegmentWriter"/>) and a crash left unused is as empty as a header-only one.
    /// </summary>
    private bool HoldsRecords((int Id, int Generation) file)
    {
        string path = Path.Combine(_directory, Segment.FileName(file.Id, file.Generation));
        long length = new FileInfo(path).Length;
        if (length <= RecordFormat.FileHeaderSize)
        {
            return false;
        }

        using IStorageFile opened = _device.Open(path, FileMode.Open, writable: false);
        return SegmentScanner.HoldsRecords(opened);
    }

    /// <summary>The newest segment, written after a segment whose seal a power loss took: cut whole (none of its records was acknowledged as durable).</summary>
    private void DropWrittenAfterALostSeal(int id, int generation)
    {
        long dropped = FileLength((id, generation)) - RecordFormat.FileHeaderSize;
        _truncations.Add(new TailTruncation(id, RecordFormat.FileHeaderSize, dropped, "written after a segment whose seal a crash cut short"));
        if (TailDbEventSource.Log.StorageEnabled())
        {
            TailDbEventSource.Log.TailTruncated(id, RecordFormat.FileHeaderSize, dropped);
        }
    }

    /// <summary>
    /// Deletes the files from <paramref name="first"/> on, then makes that durable: header-only
    /// files, counted as leftovers, and <paramref name="cutWhole"/> (0 or 1) segment cut whole,
    /// reported as a truncation instead.
    /// </summary>
    private void DeleteFrom(List<(int Id, int Generation)> live, int first, int cutWhole)
    {
        if (!Writable || first >= live.Count)
        {
            return;
        }

        _leftovers += live.Count - first - cutWhole;
        for (int i = first; i < live.Count; i++)
        {
            _device.Delete(Path.Combine(_directory, Segment.FileName(live[i].Id, live[i].Generation)));
        }

        _device.FlushDirectory(_directory);
    }

    /// <summary>
    /// Opens and loads one segment. <paramref name="mayEndTheLog"/>: the newest segment, or the one
    /// sealed just before it, where a crash may have cut records (and the seal) off the end.
    /// Returns whether the segment ends with its seal.
    /// </summary>
    private (Segment Segment, bool Sealed) OpenSegment(int id, int generation, bool mayEndTheLog)
    {
        string path = Path.Combine(_directory, Segment.FileName(id, generation));
        IStorageFile file = _device.Open(path, FileMode.Open, Writable);
        try
        {
            var segment = new Segment(++_lastNumber, id, generation, file, file.Length);
            _scanned = _scanned.With([segment], []);
            if (!CheckFileHeader(segment, mayEndTheLog))
            {
                return (segment, false);
            }

            string hintPath = Path.Combine(_directory, Segment.HintFileName(id, generation));
            if (File.Exists(hintPath) && TryLoadHint(segment, hintPath))
            {
                // A hint is written only for a compacted segment, which always ends sealed.
                _hintsUsed++;
                segment.SealDurable = true;
                return (segment, true);
            }

            bool isSealed = Scan(segment, mayEndTheLog);
            segment.SealDurable = isSealed;
            return (segment, isSealed);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>False when the file was empty or torn at creation and has been reset (nothing to scan).</summary>
    private bool CheckFileHeader(Segment segment, bool isNewest)
    {
        Span<byte> header = stackalloc byte[RecordFormat.FileHeaderSize];
        int n = segment.File.Read(header, 0);
        if (n == RecordFormat.FileHeaderSize && BinaryPrimitives.ReadUInt64LittleEndian(header) == RecordFormat.SegmentMagic)
        {
            return true;
        }

        if (isNewest && segment.Length < RecordFormat.FileHeaderSize)
        {
            // Created but its header never fully reached the disk: a torn tail of zero records.
            Truncate(segment, 0, "segment file header cut short");
            if (Writable)
            {
                SegmentWriter.WriteFileHeader(segment.File);
                segment.Length = RecordFormat.FileHeaderSize;
            }

            return false;
        }

        throw new TailDbCorruptionException($"The TailDb segment file '{segment.File.Path}' does not start with the segment header; the store cannot be opened without risking wrong values.");
    }

    private bool TryLoadHint(Segment segment, string hintPath)
    {
        using IStorageFile hint = _device.Open(hintPath, FileMode.Open, writable: false);
        if (!HintFile.TryReadHeader(hint, segment.Length, out HintHeader header))
        {
            return false;
        }

        if (!_keyDir.IsEmpty)
        {
            return TryMergeHint(segment, hint);
        }

        // Nothing is in the directory yet, so it can take the seed the hint's hashes were made
        // with and place every key without hashing it (a version 1 hint has no hashes to reuse).
        if (header.CarriesHashes)
        {
            _keyDir.AdoptSeed(header.Seed);
        }

        return TryBulkLoadHint(segment, hint, header);
    }

    /// <summary>
    /// The usual reopen (the compacted segment is the oldest, the directory still empty): a hint
    /// holds each key once (compaction wrote it from the key directory), so it needs no lookups.
    /// One pass verifies and bulk-adds each entry; the bulk load publishes nothing until it
    /// completes, so a damaged file is dropped whole and the segment scanned instead.
    /// </summary>
    private bool TryBulkLoadHint(Segment segment, IStorageFile hint, HintHeader header)
    {
        // Entries in hash order under the directory's own seed (compaction writes them so) are
        // placed as they are read; any other order goes through the bulk load's grouping.
        bool inHashOrder = header.CarriesHashes && header.SortedByHash && header.Seed == _keyDir.Seed;
        int expected = header.CarriesHashes ? header.Count : (int)Math.Min(int.MaxValue / 2, hint.Length / HintFile.TypicalEntryBytes);
        KeyDir.BulkLoad bulk = _keyDir.BeginBulkLoad(expected, inHashOrder, KeyArena.BytesFor(header.Count, HintFile.KeyBytes(header, hint.Length)));
        var sink = new BulkSink(bulk, segment.Number);
        if (!HintFile.TryLoadOnce(hint, header, segment.Length, _keyDir.Seed, ref sink) || bulk.Overflowed)
        {
            bulk.Abandon();
            return false;
        }

        bulk.Complete();
        _records += bulk.Count;
        return true;
    }

    /// <summary>Hands hint entries straight to a bulk load.</summary>
    private readonly struct BulkSink(KeyDir.BulkLoad bulk, int segmentNumber) : IHintEntrySink
    {
        public void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength) =>
            bulk.Add(key, hash, new RecordLocation(segmentNumber, offset, key.Length, valueLength));
    }

    /// <summary>A hint for a directory that already holds keys: verified whole first, then merged key by key.</summary>
    private bool TryMergeHint(Segment segment, IStorageFile hint)
    {
        long records = 0;
        int number = segment.Number;
        bool ok = HintFile.TryLoad(hint, segment.Length, _keyDir.Seed, (key, hash, offset, valueLength) =>
        {
            _keyDir.Set(key, hash, new RecordLocation(number, offset, key.Length, valueLength), out RecordLocation previous);
            if (previous.SegmentNumber != 0)
            {
                _scanned.Supersede(previous);
            }

            records++;
        }, _keyDir.Reserve);
        _records += records;
        return ok;
    }

    /// <summary>Replays the segment's records; returns whether it ends with its seal (only a segment that may end the log can end otherwise).</summary>
    private bool Scan(Segment segment, bool isNewest)
    {
        var scanner = new SegmentScanner(segment.File, segment.Length, _options.MaxValueBytes);
        long offset = RecordFormat.FileHeaderSize;
        bool sealedAtEnd = false;
        while (true)
        {
            ScanOutcome outcome = scanner.Next(offset, out ScannedRecord record);
            sealedAtEnd = outcome == ScanOutcome.Seal || (sealedAtEnd && outcome is ScanOutcome.End or ScanOutcome.Unwritten);
            if (outcome == ScanOutcome.Unwritten)
            {
                // Zeros the writer put there ahead of need and never wrote over: not damage, so not
                // reported; cut so that the next append (or the next open) starts where the log ends.
                TrimUnwritten(segment, offset);
                outcome = ScanOutcome.End;
            }

            switch (outcome)
            {
                case ScanOutcome.End:
                    if (!isNewest && !sealedAtEnd)
                    {
                        throw new TailDbCorruptionException(
                            $"The TailDb segment file '{segment.File.Path}' ends at offset {offset} without the seal every older segment ends with: " +
                            "records at its end are missing, so the store refuses to open rather than risk returning overwritten values.");
                    }

                    return sealedAtEnd;

                case ScanOutcome.Seal:
                    // A seal only counts at the very end of a sealed segment; elsewhere it is a no-op
                    // (the newest segment sealed just before a crash, then written on after reopen).
                    offset += record.Size;
                    break;

                case ScanOutcome.Record:
                    RecordLocation previous;
                    if (record.IsTombstone)
                    {
                        _keyDir.Remove(record.Key, out previous);
                        segment.AddDead(record.Size);
                    }
                    else
                    {
                        _keyDir.Load(record.Key, new RecordLocation(segment.Number, offset, record.Key.Length, record.ValueLength), out previous);
                    }

                    _scanned.Supersede(previous);

                    _records++;
                    offset += record.Size;
                    break;

                case ScanOutcome.ValueCorrupt:
                    bool lastInFile = offset + record.Size >= segment.Length || scanner.IsUnwrittenFrom(offset + record.Size);
                    if (isNewest && lastInFile)
                    {
                        Truncate(segment, offset, record.Damage!);
                        return false;
                    }

                    _keyDir.Set(record.Key, RecordLocation.Corrupt(segment.Number, offset, record.Key.Length), out RecordLocation superseded);
                    _scanned.Supersede(superseded);
                    _corrupt.Add(new CorruptRecordInfo(segment.Id, offset, record.Damage!));
                    if (TailDbEventSource.Log.StorageEnabled())
                    {
                        TailDbEventSource.Log.CorruptRecord(segment.Id, offset, record.Damage!);
                    }

                    // Past the end when the value was cut short: the End case then finds no seal.
                    offset += record.Size;
                    break;

                default:
                    if (isNewest && !scanner.AnyIntactRecordAfter(offset))
                    {
                        Truncate(segment, offset, record.Damage!);
                        return false;
                    }

                    if (TailDbEventSource.Log.StorageEnabled())
                    {
                        TailDbEventSource.Log.CorruptRecord(segment.Id, offset, record.Damage!);
                    }

                    throw new TailDbCorruptionException(
                        $"The TailDb segment file '{segment.File.Path}' is corrupt at offset {offset} ({record.Damage}); " +
                        $"the {segment.Length - offset} bytes after it cannot be attributed to keys, so the store refuses to open rather than risk returning overwritten values.");
            }
        }
    }

    /// <summary>Cuts a torn tail at <paramref name="offset"/>; what it reports dropped is every byte cut from the file, prefilled zeros after the tear included.</summary>
    private void Truncate(Segment segment, long offset, string reason)
    {
        long dropped = segment.Length - offset;
        _truncations.Add(new TailTruncation(segment.Id, offset, dropped, reason));
        if (TailDbEventSource.Log.StorageEnabled())
        {
            TailDbEventSource.Log.TailTruncated(segment.Id, offset, dropped);
        }

        Cut(segment, offset);
    }

    private void TrimUnwritten(Segment segment, long offset)
    {
        Cut(segment, offset);
        segment.Length = offset;
    }

    /// <summary>A writable open cuts the file at <paramref name="offset"/>, durably; a read-only one leaves it.</summary>
    private void Cut(Segment segment, long offset)
    {
        if (Writable)
        {
            segment.File.SetLength(offset);
            segment.File.Flush();
            segment.Length = offset;
        }
    }

    private void DeleteIfExists(string path)
    {
        if (File.Exists(path))
        {
            _device.Delete(path);
        }
    }
}
