using System.Buffers.Binary;

namespace TailDb.Storage;

/// <summary>
/// Appends records to the active segment and rotates it by size. Appends are serialised by
/// <see cref="WriteLock"/>, which callers hold while they also update the key directory and the
/// cache, so the index changes in exactly the order the log does.
/// <para>
/// <b>Work under the writer lock.</b> An append is one positional write of the record (into the
/// page cache). A rotation is one 24-byte write of the seal, taking the next segment file made
/// ahead of need (the spare), and publishing a new segment set (O(open segments): a copy of a
/// list of tens). Everything that waits for the device is done off the lock, with Background
/// upkeep: the <see cref="SegmentPreparer"/> thread fsyncs the segment just sealed and creates
/// the next spare (file, header and, with <see cref="Durability.Fsync"/>, its fsync and the
/// directory's). Two cases put slow work back under the lock, both counted in
/// <see cref="SlowRotations"/>: a rotation that finds the previous seal's fsync not yet done (a
/// segment filled within one fsync) completes it first, and one that finds no spare (a segment
/// filled before the preparer made one) creates the file itself; each is the whole cost of the
/// first design, no more. <see cref="UpkeepMode.OnRequest"/> keeps that first design: every
/// rotation seals, fsyncs and creates under the lock.
/// </para>
/// <para>
/// <b>Prefilled spares.</b> Once a segment is half written (so the store writes enough to rotate
/// by size), a thread of its own fills the spare with zeros to its full size, a chunk at a time,
/// before a rotation takes it, and every spare after it. An append then overwrites page-cache
/// pages that exist, where it would otherwise allocate, zero and charge a new page and reserve its
/// block, under the writer lock (docs/store.md, "Prefilled spares"; the server's figures in
/// docs/server.md). That thread runs at SCHED_IDLE (<see cref="UpkeepThread"/>): it takes a core
/// only when nothing else wants one, so on a machine whose cores serve requests the zeros cost the
/// requests nothing. No writer ever waits on a lock it holds (it holds none: a writer waiting on a
/// starved thread would be a priority inversion). It announces the chunk it is about to write
/// (<see cref="Segment.ZeroFillFrontier"/>), then checks the file is still the spare; a rotation
/// takes the spare, then the writer reads the announcement: a chunk announced and not begun it
/// takes back, and it waits only if an append would reach a chunk being written (it has the whole
/// prefilled part below to write first). Zeros are
/// never a record, so a crash's full-size file reads as written up to its zeros
/// (<see cref="SegmentScanner"/>); a sealed segment is cut back to its seal off the lock
/// (<see cref="CompleteSeal(Segment)"/>), the active one at close. With
/// <see cref="Durability.Fsync"/> each chunk is written back before the next, so a group commit
/// never flushes zeros, and its fsyncs find the blocks allocated and the file's size unchanged.
/// </para>
/// <para>
/// <b>Durability stays exact.</b> At most one sealed segment is waiting for its fsync
/// (<see cref="FlushTarget"/> hands it to a group-commit leader, which fsyncs it before the active
/// segment), so an acknowledged Fsync-mode write in a segment is never durable before every
/// segment before it is, seal included. A power loss can therefore leave the sealed segment
/// without its seal only if nothing written after it was acknowledged as durable; recovery then
/// ends the log there (<see cref="Recovery"/>).
/// </para>
/// </summary>
internal sealed class SegmentWriter : IDisposable
{
    private readonly IStorageDevice _device;
    private readonly string _directory;
    private readonly long _segmentMaxBytes;
    private readonly bool _fsync;
    private readonly StoreFault _fault;

    // Spare and seal made off the lock (Background upkeep on a writable store); else the first design.
    private readonly bool _ahead;

    // Guards _spare and the choice of the spare's id (the active's id + 1). Lock order: WriteLock, then this.
    private readonly Lock _spareLock = new();
    private SegmentSet _segments;
    private Segment _active;
    private Segment? _spare;

    // The segment the last rotation sealed, until an fsync made it durable; set under WriteLock.
    private Segment? _sealing;
    private SegmentPreparer? _preparer;

    // Fills the spare with zeros at SCHED_IDLE (see the class comment); the spare it was handed.
    private SegmentPreparer? _prefiller;
    private Segment? _prefillTarget;
    private bool _closed;

    // Set under WriteLock when a segment is first half written: from then on spares are prefilled.
    private volatile bool _prefillSpares;

    // Set by Dispose before it stops the preparer and the prefilling thread, so a prefill in progress ends at its next chunk.
    private volatile bool _closing;
    private long _sequence;
    private int _lastNumber;
    private int _slowRotations;

    public SegmentWriter(IStorageDevice device, string directory, TailDbOptions options, StoreFault fault, SegmentSet segments, int lastNumber)
    {
        _device = device;
        _directory = directory;
        _segmentMaxBytes = options.SegmentMaxBytes;
        _fsync = options.Durability == Durability.Fsync;
        _fault = fault;
        _segments = segments;
        _lastNumber = lastNumber;
        _active = segments.Ordered[^1];
        _ahead = !options.ReadOnly && options.Upkeep == UpkeepMode.Background;
    }

    public Lock WriteLock { get; } = new();

    /// <summary>The open segments; readers take this snapshot without locking.</summary>
    public SegmentSet Segments => Volatile.Read(ref _segments);

    public Segment Active => _active;

    /// <summary>Count of records appended (under <see cref="WriteLock"/>).</summary>
    public long Sequence => _sequence;

    /// <summary>Rotations that did slow work under the lock because the preparer had not finished (see the class comment).</summary>
    public int SlowRotations => Volatile.Read(ref _slowRotations);

    /// <summary>
    /// Makes the first spare (so the first rotation is a swap too) and starts the preparer thread;
    /// called once by open. Does nothing for a read-only store or with OnRequest upkeep.
    /// </summary>
    public void StartPreparing()
    {
        if (_ahead)
        {
            _prefiller = new SegmentPreparer(PrefillInBackground, "TailDb prefill", CompactionPriority.Idle);
            PrepareInBackground();
            _preparer = new SegmentPreparer(PrepareInBackground);
        }
    }

    /// <summary>The priority the prefilling thread runs at (null without one: read-only or OnRequest upkeep).</summary>
    internal CompactionPriority? PrefillPriority => _prefiller?.Applied;

    /// <summary>A fresh in-process segment number; the key directory packs it in 24 bits, so a process opens at most 16.7M segments.</summary>
    public int NextNumber()
    {
        int number = Interlocked.Increment(ref _lastNumber);
        return number <= KeyDir.MaxSegmentNumber
            ? number
            : throw new InvalidOperationException($"This process has numbered {KeyDir.MaxSegmentNumber} TailDb segments, the key directory's limit; reopen the store to number them afresh.");
    }

    /// <summary>Appends one encoded record (a run of one); the caller holds <see cref="WriteLock"/>.</summary>
    public RecordLocation AppendLocked(ReadOnlySpan<byte> record, int keyLength, int valueLength) =>
        AppendRunLocked(record, records: 1) with { KeyLength = keyLength, ValueLength = valueLength };

    /// <summary>
    /// How many bytes a run of records beginning with one of <paramref name="firstRecordBytes"/>
    /// may take so that <see cref="AppendRunLocked"/> writes it whole into one segment: what the
    /// active segment has left, or a fresh segment's room if that first record already would
    /// rotate (the same rule as <see cref="AppendLocked"/>). Never less than the first record (a
    /// record larger than a segment goes alone). The caller holds <see cref="WriteLock"/>.
    /// </summary>
    public long RoomForRunLocked(int firstRecordBytes)
    {
        long room = _segmentMaxBytes - RecordFormat.SealSize - _active.Length;
        if (firstRecordBytes > room && _active.Length > RecordFormat.FileHeaderSize)
        {
            room = _segmentMaxBytes - RecordFormat.SealSize - RecordFormat.FileHeaderSize;
        }

        return Math.Max(room, firstRecordBytes);
    }

    /// <summary>
    /// Appends <paramref name="records"/> encoded records laid end to end with one positional
    /// write (a batch's run, at most <see cref="RoomForRunLocked"/> bytes); rotates first as
    /// <see cref="AppendLocked"/> would for a record of the run's size. Returns where the run
    /// begins. The caller holds <see cref="WriteLock"/>.
    /// </summary>
    public RecordLocation AppendRunLocked(ReadOnlySpan<byte> run, int records)
    {
        _fault.ThrowIfFaulted();
        if (_active.Length + run.Length + RecordFormat.SealSize > _segmentMaxBytes && _active.Length > RecordFormat.FileHeaderSize)
        {
            RotateLocked();
        }

        long offset = _active.Length;
        try
        {
            WriteAt(_active, run, offset);
        }
#pragma warning disable CA1031 // as AppendLocked: a failed write faults the store whatever its type
        catch (Exception e)
#pragma warning restore CA1031
        {
            throw _fault.Fault($"write to '{_active.File.Path}'", e);
        }

        _active.Length = offset + run.Length;
        _sequence += records;
        if (!_prefillSpares && _active.Length > _segmentMaxBytes / 2)
        {
            // Half a segment written: the store writes enough for the spare's pages to matter,
            // and the prefilling thread has the other half's time to fill the spare already made
            // (the preparer hands it over).
            _prefillSpares = true;
            _preparer?.Wake();
        }

        return new RecordLocation(_active.Number, offset, 0, 0);
    }

    /// <summary>
    /// What a group-commit leader must fsync to make every append so far durable: the segment
    /// sealed by the last rotation if its fsync is still pending (first: see
    /// <see cref="CompleteSeal(Segment)"/>), then the active segment (see <see cref="MakeDurable(Segment)"/>).
    /// </summary>
    public (Segment? Sealing, Segment Active, long Sequence) FlushTarget()
    {
        lock (WriteLock)
        {
            return (_sealing, _active, _sequence);
        }
    }

    /// <summary>
    /// Off the writer lock: makes every record appended so far durable (the pending seal, then
    /// the active segment), as a group commit does, without advancing its count. Compaction calls
    /// it before its commit point: a record it left out because a newer write superseded it may
    /// only disappear once that newer write is durable, or a power loss would take both.
    /// </summary>
    public void MakeAppendedDurable()
    {
        (Segment? sealing, Segment active, _) = FlushTarget();
        if (sealing is not null)
        {
            CompleteSeal(sealing);
        }

        MakeDurable(active);
    }

    /// <summary>
    /// Fsyncs <paramref name="segment"/> unless its seal is already durable: the active one when
    /// a caller looked (a rotation may have sealed it since, and compaction closed its file: then
    /// its seal's fsync made every record in it durable, and a failure on the closed file is no
    /// failure), or a sealed one (<see cref="CompleteSeal(Segment)"/>).
    /// </summary>
    public void MakeDurable(Segment segment)
    {
        if (segment.SealDurable)
        {
            return;
        }

        try
        {
            segment.File.Flush();
        }
#pragma warning disable CA1031 // a failed fsync faults the store whatever its type
        catch (Exception e)
#pragma warning restore CA1031
        {
            if (segment.SealDurable)
            {
                return;
            }

            throw _fault.Fault($"fsync of '{segment.File.Path}'", e);
        }
    }

    /// <summary>
    /// Off the writer lock: the fsync of the segment sealed last, if still pending, then the next
    /// spare, if there is none. Compaction calls it before it seals (so its rotation is a swap)
    /// and after. Throws <see cref="TailDbFaultedException"/> if the fsync fails (the store is
    /// then faulted); a spare that cannot be made is left to the next rotation to make or fail.
    /// </summary>
    public void Prepare()
    {
        if (!_ahead)
        {
            return;
        }

        if (Volatile.Read(ref _sealing) is { } sealing)
        {
            CompleteSeal(sealing);
        }

        try
        {
            EnsureSpare();
        }
#pragma warning disable CA1031 // upkeep: a rotation that finds no spare makes one, and faults the store if it cannot
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>The preparer thread's run: <see cref="Prepare"/>, with a failed fsync left as the store's fault (writers see it).</summary>
    public void PrepareInBackground()
    {
        try
        {
            Prepare();
        }
        catch (TailDbFaultedException)
        {
        }
    }

    /// <summary>
    /// Makes <paramref name="segment"/>, sealed by a rotation, durable unless an fsync already has:
    /// called by the preparer, a group-commit leader that needs it, compaction, or a rotation that
    /// finds it still pending. Two of them may fsync at once; either makes it durable.
    /// </summary>
    public void CompleteSeal(Segment segment)
    {
        TrimPrefill(segment);

        // Another caller's fsync may have made it durable meanwhile (and compaction closed the
        // file since): MakeDurable then returns, and a failure on the closed file changes nothing.
        MakeDurable(segment);
        segment.SealDurable = true;
        Interlocked.CompareExchange(ref _sealing, null, segment);
    }

    /// <summary>
    /// Cuts a sealed (or closing) segment's prefilled zeros after its last record or seal. Nothing
    /// is lost if it fails or the file is closed already: recovery reads the zeros as unwritten.
    /// </summary>
    private static void TrimPrefill(Segment segment)
    {
        try
        {
            if (segment.File.Length > segment.Length)
            {
                segment.File.SetLength(segment.Length);
            }
        }
#pragma warning disable CA1031 // upkeep that changes no record: any failure leaves zeros recovery reads as unwritten
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>Seals the active segment if it holds records, so compaction can take it; caller holds the lock.</summary>
    public void SealActiveLocked()
    {
        if (_active.Length > RecordFormat.FileHeaderSize)
        {
            _fault.ThrowIfFaulted();
            RotateLocked();
        }
    }

    /// <summary>Replaces segments (compaction); caller holds the lock.</summary>
    public void PublishLocked(IEnumerable<Segment> added, IEnumerable<Segment> removed) =>
        Volatile.Write(ref _segments, _segments.With(added, removed));

    /// <summary>Whether a rotation now would be a handle swap (no seal fsync pending, a spare ready); caller holds the lock.</summary>
    public bool RotationIsSwapLocked()
    {
        if (!_ahead)
        {
            return true;
        }

        // Never wait here: the preparer holds this lock while it makes a spare.
        if (!_spareLock.TryEnter())
        {
            return false;
        }

        try
        {
            return _sealing is null or { SealDurable: true } && _spare is not null;
        }
        finally
        {
            _spareLock.Exit();
        }
    }

    private void RotateLocked()
    {
        try
        {
            if (!_ahead)
            {
                RotateInlineLocked();
                return;
            }

            Segment sealedSegment = _active;
            bool slow = false;
            if (_sealing is { SealDurable: false } pending)
            {
                // The segment before filled within one fsync: keep at most one seal pending.
                slow = true;
                CompleteSeal(pending);
            }

            WriteSeal(sealedSegment);

            // Held by the preparer only while it makes the spare: waiting for it is the slow case too.
            if (!_spareLock.TryEnter())
            {
                slow = true;
                _spareLock.Enter();
            }

            try
            {
                Segment? next = _spare;
                _spare = null;

                // Taken before the writer reads the prefill's announcement (WriteAt): the other
                // half of the prefilling thread's announce-then-check.
                Interlocked.MemoryBarrier();
                if (next is null)
                {
                    slow = true;
                    next = CreateSegment(_device, _directory, sealedSegment.Id + 1, 0, NextNumber(), _fsync);
                }

                PublishLocked([next], []);
                _active = next;
                Volatile.Write(ref _sealing, sealedSegment);
            }
            finally
            {
                _spareLock.Exit();
            }

            if (slow)
            {
                _slowRotations++;
            }

            _preparer?.Wake();
        }
#pragma warning disable CA1031 // see AppendLocked
        catch (Exception e) when (e is not TailDbException)
#pragma warning restore CA1031
        {
            throw _fault.Fault($"rotation of '{_active.File.Path}'", e);
        }
    }

    /// <summary>The first design (OnRequest upkeep): seal, fsync and create the next file, all under the lock.</summary>
    private void RotateInlineLocked()
    {
        // Seal and fsync the full segment in both durability modes: a sealed segment must end
        // with its seal (recovery checks), and a group-commit leader only fsyncs the active one.
        WriteSeal(_active);
        _active.File.Flush();
        _active.SealDurable = true;

        Segment next = CreateSegment(_device, _directory, _active.Id + 1, 0, NextNumber(), _fsync);
        PublishLocked([next], []);
        _active = next;
    }

    private static void WriteSeal(Segment segment)
    {
        Span<byte> seal = stackalloc byte[RecordFormat.SealSize];
        RecordFormat.WriteSeal(seal, segment.Length);
        WriteAt(segment, seal, segment.Length);
        segment.Length += seal.Length;
    }

    /// <summary>Creates the spare if there is none: the file after the active one, header written (and fsynced with its directory entry under Fsync); once spares are prefilled, hands it to the prefilling thread, once.</summary>
    private void EnsureSpare()
    {
        Segment spare;
        lock (_spareLock)
        {
            if (_closed)
            {
                return;
            }

            // The active segment cannot change meanwhile: a rotation takes this lock to swap.
            spare = _spare ??= CreateSegment(_device, _directory, _active.Id + 1, 0, NextNumber(), _fsync);
            if (!_prefillSpares || spare.PrefillStarted)
            {
                return;
            }

            spare.PrefillStarted = true;
        }

        Volatile.Write(ref _prefillTarget, spare);
        _prefiller?.Wake();
    }

    /// <summary>The prefilling thread's run: fills the spare it was handed, if it still is the spare.</summary>
    private void PrefillInBackground()
    {
        if (Interlocked.Exchange(ref _prefillTarget, null) is { } spare)
        {
            Prefill(spare);
        }
    }

    /// <summary>
    /// A writer's positional write into a segment that may have been a prefilled spare: first
    /// settles a zero chunk the prefilling thread announced at or before the bytes' end (see
    /// <see cref="Segment.ZeroFillFrontier"/>). The announcement is read after the rotation's
    /// swap and the fence after it; in the usual case it is <see cref="long.MaxValue"/> and this
    /// costs one read.
    /// </summary>
    private static void WriteAt(Segment segment, ReadOnlySpan<byte> data, long offset)
    {
        if (Volatile.Read(ref segment.ZeroFillFrontier) != long.MaxValue)
        {
            SettleZeroFill(segment, offset + data.Length);
        }

        segment.File.Write(data, offset);
    }

    /// <summary>
    /// A chunk announced and not begun is taken back (the prefilling thread then writes nothing
    /// more), so a writer never waits for a thread that has not been given a core; one being
    /// written that this write would reach is waited out (its copy into the page cache).
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void SettleZeroFill(Segment segment, long end)
    {
        var spin = default(SpinWait);
        while (true)
        {
            long frontier = Volatile.Read(ref segment.ZeroFillFrontier);
            if (frontier == long.MaxValue)
            {
                return;
            }

            if (frontier >= 0)
            {
                if (end <= frontier || Interlocked.CompareExchange(ref segment.ZeroFillFrontier, long.MaxValue, frontier) == frontier)
                {
                    return;
                }

                continue; // the thread began the chunk meanwhile
            }

            if (end <= -(frontier + 1))
            {
                return;
            }

            spin.SpinOnce(sleep1Threshold: 20);
        }
    }

    /// <summary>
    /// Fills <paramref name="spare"/> with zeros up to the segment size (see the class comment), a
    /// chunk at a time, on the prefilling thread. Before each chunk it announces the chunk, checks
    /// the file is still the spare (a full fence between, as the rotation has between its swap and
    /// the writer's first read of the announcement), then marks the chunk begun unless a writer took
    /// the announcement back: once a rotation took the file, no chunk is begun and the writer owns
    /// the file. With Fsync each chunk is written back before the next and the file fsynced at the
    /// end, so the zeros are on disk before a group commit could flush them. A failure (a full
    /// disk) only ends the prefill: the writer extends the file as it would have.
    /// </summary>
    private void Prefill(Segment spare)
    {
        long end = _segmentMaxBytes;
        bool whole = false;
        try
        {
            for (long at = RecordFormat.FileHeaderSize; ; at += PrefillChunk.Length)
            {
                if (at >= end)
                {
                    whole = true;
                    break;
                }

                // Announce, check, then begin: a writer that took the file takes back an announced
                // chunk (the begin then fails) and waits only for one begun.
                Interlocked.Exchange(ref spare.ZeroFillFrontier, at);
                if (_closing || Volatile.Read(ref _spare) != spare
                    || Interlocked.CompareExchange(ref spare.ZeroFillFrontier, -(at + 1), at) != at)
                {
                    break;
                }

                int count = (int)Math.Min(PrefillChunk.Length, end - at);
                spare.File.Write(PrefillChunk.AsSpan(0, count), at);

                // Done with the page cache: a writer must not wait for the writeback below.
                Volatile.Write(ref spare.ZeroFillFrontier, long.MaxValue);
                if (_fsync)
                {
                    spare.File.Writeback(at, count, wait: true);
                }
            }
        }
#pragma warning disable CA1031 // upkeep: a prefill that fails (a full disk) leaves the spare as it would be without one
        catch (Exception)
#pragma warning restore CA1031
        {
        }
        finally
        {
            Volatile.Write(ref spare.ZeroFillFrontier, long.MaxValue);
        }

        try
        {
            if (whole && _fsync && !_closing && Volatile.Read(ref _spare) == spare)
            {
                spare.File.Flush();
            }
        }
#pragma warning disable CA1031 // as above; an fsync a group commit makes anyway
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>One chunk of a spare's prefill (zeros): 1 MiB, the most a writer can find in flight ahead of it.</summary>
    private static readonly byte[] PrefillChunk = new byte[1 << 20];

    /// <summary>Creates an empty segment file with its header; with <paramref name="durable"/> the file and its directory entry are fsynced.</summary>
    public static Segment CreateSegment(IStorageDevice device, string directory, int id, int generation, int number, bool durable)
    {
        string path = Path.Combine(directory, Segment.FileName(id, generation));
        IStorageFile file = device.Open(path, FileMode.CreateNew, writable: true);
        try
        {
            WriteFileHeader(file);
            if (durable)
            {
                file.Flush();
                device.FlushDirectory(directory);
            }
        }
        catch
        {
            file.Dispose();
            DeleteQuietly(device, path);
            throw;
        }

        return new Segment(number, id, generation, file, RecordFormat.FileHeaderSize);
    }

    public static void WriteFileHeader(IStorageFile file)
    {
        Span<byte> header = stackalloc byte[RecordFormat.FileHeaderSize];
        BinaryPrimitives.WriteUInt64LittleEndian(header, RecordFormat.SegmentMagic);
        file.Write(header, 0);
    }

    /// <summary>
    /// Closes the files; the caller holds the writer lock. Stops the preparer and the prefilling
    /// thread first, completes a pending seal (a closed store's sealed segments are durable, as in
    /// the first design) and deletes the spare, so a closed directory holds only the log.
    /// </summary>
    public void Dispose()
    {
        _closing = true;
        _preparer?.Dispose();
        _prefiller?.Dispose();
        if (_sealing is { } pending && !_fault.IsFaulted)
        {
            try
            {
                CompleteSeal(pending);
            }
            catch (TailDbFaultedException)
            {
                // Reported as the store's fault; the next open finds the seal or ends the log before it.
            }
        }

        lock (_spareLock)
        {
            _closed = true;
            if (_spare is { } spare)
            {
                spare.Dispose();
                DeleteQuietly(_device, spare.File.Path);
                _spare = null;
            }
        }

        // The active segment may be a prefilled spare: a closed directory holds only the log. Not
        // after a failed write, whose torn record past Length the next open must find and report.
        if (!_fault.IsFaulted)
        {
            TrimPrefill(_active);
        }

        foreach (Segment segment in _segments.Ordered)
        {
            segment.Dispose();
        }
    }

    private static void DeleteQuietly(IStorageDevice device, string path)
    {
        try
        {
            device.Delete(path);
        }
        catch (IOException)
        {
            // A header-only file left behind is a spare to the next open, which deletes it.
        }
    }
}
