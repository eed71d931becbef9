using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.ExceptionServices;

namespace TailDb.Storage;

/// <summary>Receives one hint entry; <paramref name="key"/> is valid only during the call. <paramref name="hash"/> is the key's under the seed the load asked for.</summary>
internal delegate void HintEntryHandler(ReadOnlySpan<byte> key, int hash, long offset, int valueLength);

/// <summary>
/// Receives hint entries as a struct, so the walk is compiled for it and the per-entry call is
/// inlined (a million entries, no delegate call or closure each); the walk's own adapters
/// (a delegate, the two stages of <see cref="IStagedHintSink"/>) are such structs.
/// </summary>
internal interface IHintEntrySink
{
    void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength);
}

/// <summary>
/// Receives hint entries in two stages, so a load can run on two threads: <see cref="Stage"/> on
/// the thread that reads and checks the file, <see cref="Finish"/> on the caller's, each called
/// in file order by one thread at a time, <see cref="Finish"/> with what <see cref="Stage"/>
/// returned for the same entry. A sink is passed by value: it holds references, so copies share
/// what they fill.
/// </summary>
internal interface IStagedHintSink
{
    /// <summary>The first half of taking an entry; <paramref name="key"/> is valid only during the call.</summary>
    long Stage(ReadOnlySpan<byte> key, int hash, long offset, int valueLength);

    /// <summary>The second half, given what <see cref="Stage"/> returned.</summary>
    void Finish(long staged);
}

/// <summary>
/// What a hint file's header says: its format version and, from version 2, the seed its entries'
/// hashes were made with, how many entries it holds, and whether they are in ascending order of
/// their hashes (unsigned), which lets a bulk load place each key as it reads it.
/// </summary>
internal readonly record struct HintHeader(int Version, ulong Seed, int Count = -1, bool SortedByHash = false)
{
    /// <summary>Whether the entries carry key hashes (version 2).</summary>
    public bool CarriesHashes => Version >= 2;
}

/// <summary>
/// A compacted segment's index, so reopening reads keys and offsets instead of every value.
/// Version 2 (written since issue 25) also carries each key's hash under the key directory's seed,
/// so a reopen that adopts the seed places keys without hashing them again:
/// <code>
/// header  u64 magic "TDBHINT2" | u64 segment length | u64 hash seed | u32 entries | u32 flags | u32 CRC32C of the previous 32 bytes
/// entry   u32 CRC32C of the rest | u32 keyLength | u32 valueLength | u32 keyHash | u64 offset | key
/// </code>
/// flags bit 0: the entries are in ascending order of keyHash as an unsigned number (compaction
/// writes them so): the key directory's home slot is the hash's top bits, so a load places them
/// front to back through the table. The writer sets it only if the order it was given was so.
/// Version 1 (still read: its keys are hashed as they load, as before version 2 existed):
/// <code>
/// header  u64 magic "TDBHINT1" | u64 segment length | u32 CRC32C of the previous 16 bytes
/// entry   u32 CRC32C of the rest | u32 keyLength | u32 valueLength | u64 offset | key
/// </code>
/// Any mismatch (CRC, length, segment size, an unknown magic) makes the loader fall back to
/// scanning the segment.
/// </summary>
internal static class HintFile
{
    private const ulong MagicV1 = 0x3154_4E49_4842_4454; // "TDBHINT1"
    private const ulong MagicV2 = 0x3254_4E49_4842_4454; // "TDBHINT2"
    private const int HeaderSizeV1 = 20;
    private const int HeaderSizeV2 = 36;
    private const uint SortedByHashFlag = 1;
    private const int EntryHeaderSizeV1 = 20;
    private const int EntryHeaderSizeV2 = 24;

    /// <summary>
    /// Read and write unit: large enough that a 1M-key hint file (40 MB) takes a few dozen reads,
    /// and holds the largest entry (24 B + a 64 KiB key) whole.
    /// </summary>
    internal const int ChunkBytes = 1 << 20;

    /// <summary>An entry with a 16-byte key: the guess that sizes a bulk load's first buffer from the file's length.</summary>
    internal const int TypicalEntryBytes = EntryHeaderSizeV2 + 16;

    public sealed class Writer : IDisposable
    {
        private readonly IStorageFile _file;
        private readonly ulong _seed;
        private readonly byte[] _buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        private int _count;
        private long _offset = HeaderSizeV2;
        private int _entries;
        private bool _sorted = true;
        private uint _lastHash;

        /// <param name="seed">The seed every <see cref="Add"/>'s hash was made with (the key directory's).</param>
        public Writer(IStorageFile file, ulong seed)
        {
            _file = file;
            _seed = seed;
        }

        public void Add(ReadOnlySpan<byte> key, int hash, long offset, int valueLength)
        {
            int size = EntryHeaderSizeV2 + key.Length;
            _sorted &= (uint)hash >= _lastHash;
            _lastHash = (uint)hash;
            _entries = checked(_entries + 1);
            if (_buffer.Length - _count < size)
            {
                FlushBuffer();
            }

            Span<byte> entry = _buffer.AsSpan(_count, size);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[4..], (uint)key.Length);
            BinaryPrimitives.WriteUInt32LittleEndian(entry[8..], (uint)valueLength);
            BinaryPrimitives.WriteInt32LittleEndian(entry[12..], hash);
            BinaryPrimitives.WriteInt64LittleEndian(entry[16..], offset);
            key.CopyTo(entry[EntryHeaderSizeV2..]);
            BinaryPrimitives.WriteUInt32LittleEndian(entry, Crc32C.Compute(entry[4..]));
            _count += size;
        }

        public void Complete(long segmentLength)
        {
            FlushBuffer();
            Span<byte> header = stackalloc byte[HeaderSizeV2];
            BinaryPrimitives.WriteUInt64LittleEndian(header, MagicV2);
            BinaryPrimitives.WriteInt64LittleEndian(header[8..], segmentLength);
            BinaryPrimitives.WriteUInt64LittleEndian(header[16..], _seed);
            BinaryPrimitives.WriteInt32LittleEndian(header[24..], _entries);
            BinaryPrimitives.WriteUInt32LittleEndian(header[28..], _sorted ? SortedByHashFlag : 0);
            BinaryPrimitives.WriteUInt32LittleEndian(header[32..], Crc32C.Compute(header[..32]));
            _file.Write(header, 0);
            _file.Flush();
        }

        private void FlushBuffer()
        {
            _file.Write(_buffer.AsSpan(0, _count), _offset);
            _offset += _count;
            _count = 0;
        }

        public void Dispose()
        {
            _file.Dispose();
            ArrayPool<byte>.Shared.Return(_buffer);
        }
    }

    /// <summary>
    /// Reads and checks the header: false (scan the segment instead) when it is damaged, of an
    /// unknown version, or written for a segment of another length.
    /// </summary>
    public static bool TryReadHeader(IStorageFile hint, long segmentLength, out HintHeader header)
    {
        header = default;
        Span<byte> bytes = stackalloc byte[HeaderSizeV2];
        if (hint.Length < HeaderSizeV1 || hint.Read(bytes[..HeaderSizeV1], 0) != HeaderSizeV1)
        {
            return false;
        }

        switch (BinaryPrimitives.ReadUInt64LittleEndian(bytes))
        {
            case MagicV1:
                if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[16..]) != Crc32C.Compute(bytes[..16]))
                {
                    return false;
                }

                header = new HintHeader(1, 0);
                break;
            case MagicV2:
                if (hint.Length < HeaderSizeV2 || hint.Read(bytes[HeaderSizeV1..], HeaderSizeV1) != HeaderSizeV2 - HeaderSizeV1
                    || BinaryPrimitives.ReadUInt32LittleEndian(bytes[32..]) != Crc32C.Compute(bytes[..32])
                    || BinaryPrimitives.ReadInt32LittleEndian(bytes[24..]) < 0)
                {
                    return false;
                }

                header = new HintHeader(
                    2,
                    BinaryPrimitives.ReadUInt64LittleEndian(bytes[16..]),
                    BinaryPrimitives.ReadInt32LittleEndian(bytes[24..]),
                    (BinaryPrimitives.ReadUInt32LittleEndian(bytes[28..]) & SortedByHashFlag) != 0);
                break;
            default:
                return false;
        }

        return BinaryPrimitives.ReadInt64LittleEndian(bytes[8..]) == segmentLength;
    }

    /// <summary>
    /// Loads every entry into <paramref name="apply"/> only if the whole file is intact; otherwise
    /// returns false having applied nothing. Two sequential passes in <see cref="ChunkBytes"/>
    /// reads through one pooled buffer: the first checks every CRC and bound, the second applies.
    /// For a caller that cannot take entries back (a key directory already holding keys); one
    /// that can (<see cref="KeyDir.BulkLoad"/>, which publishes nothing until it completes) uses
    /// <see cref="TryLoadOnce{TSink}"/> and reads the file once. Each entry's hash is the one
    /// stored when the file's seed is <paramref name="seed"/>, else computed with it.
    /// </summary>
    public static bool TryLoad(IStorageFile hint, long segmentLength, ulong seed, HintEntryHandler apply, Action<int>? reserve = null)
    {
        if (!TryReadHeader(hint, segmentLength, out HintHeader header))
        {
            return false;
        }

        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            var verifyOnly = default(NoSink);
            if (!Walk(hint, header, segmentLength, seed, buffer, ref verifyOnly, verify: true, out int entries))
            {
                return false;
            }

            // The verified count lets the key directory size itself once for the whole file.
            reserve?.Invoke(entries);

            // The file is opened read-only under the store's lock file, so it cannot change
            // between the passes; a second failure would still apply nothing past the damage.
            var sink = new DelegateSink(apply);
            return Walk(hint, header, segmentLength, seed, buffer, ref sink, verify: false, out _);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>
    /// Reads the file once, handing each entry to <paramref name="apply"/> as soon as its CRC and
    /// bounds check out (while it is still in the cache). On damage it returns false with the
    /// entries before the damage already applied: the caller must be able to discard them.
    /// </summary>
    public static bool TryLoadOnce(IStorageFile hint, long segmentLength, ulong seed, HintEntryHandler apply)
    {
        if (!TryReadHeader(hint, segmentLength, out HintHeader header))
        {
            return false;
        }

        var sink = new DelegateSink(apply);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            return Walk(hint, header, segmentLength, seed, buffer, ref sink, verify: true, out _);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>
    /// <see cref="TryLoadOnce(IStorageFile, long, ulong, HintEntryHandler)"/> for a header already
    /// read (<see cref="TryReadHeader"/>), so the caller could adopt its seed first, into a sink
    /// taking entries in two stages. A file spanning more than one read, on a machine with a
    /// second core, is read and checked and each entry staged on a second thread while the
    /// caller's finishes the entries already staged (<see cref="ReadAhead"/>): at a reopen the two
    /// halves cost about the same (reading, CRCs and the key directory's arena; its slot table).
    /// </summary>
    public static bool TryLoadOnce<TSink>(IStorageFile hint, HintHeader header, long segmentLength, ulong seed, TSink sink)
        where TSink : struct, IStagedHintSink
    {
        var layout = new Layout(header, segmentLength, seed);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            if (Environment.ProcessorCount > 1 && hint.Length - layout.FirstEntry > ChunkBytes)
            {
                return ReadAhead.Walk(hint, layout, buffer, sink);
            }

            var unstaged = new Unstaged<TSink>(sink);
            return Walk(hint, header, segmentLength, seed, buffer, ref unstaged, verify: true, out _);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>
    /// One pass over the entries on the caller's thread: checks bounds always, each CRC if
    /// <paramref name="verify"/>, and hands each entry to <paramref name="sink"/>. Each read is
    /// checked whole before any of its entries is handed over.
    /// </summary>
    private static bool Walk<TSink>(IStorageFile hint, HintHeader header, long segmentLength, ulong seed, byte[] buffer, ref TSink sink, bool verify, out int entries)
        where TSink : struct, IHintEntrySink
    {
        var layout = new Layout(header, segmentLength, seed);
        long length = hint.Length;
        long position = layout.FirstEntry;
        entries = 0;
        while (position < length)
        {
            int count = hint.Read(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - position)), position);
            int whole = count <= 0 ? 0 : Take(buffer.AsSpan(0, count), layout, verify, ref entries, ref sink);
            if (whole <= 0)
            {
                return false; // damaged, or not even one entry fits in what is left of the file: cut short
            }

            position += whole;
        }

        return layout.CountMatches(entries);
    }

    /// <summary>
    /// Takes the whole entries at the start of <paramref name="chunk"/> (an entry straddling its
    /// end is left for the next read, which starts at it): checks each one's bounds, and its CRC
    /// if asked, then hands it to <paramref name="sink"/>. Returns the bytes of whole entries, or
    /// -1 at the first damaged one, the entries before it handed over.
    /// </summary>
    private static int Take<TSink>(ReadOnlySpan<byte> chunk, in Layout layout, bool verify, ref int entries, ref TSink sink)
        where TSink : struct, IHintEntrySink, allows ref struct
    {
        int p = 0;
        while (chunk.Length - p >= layout.EntryHeaderSize)
        {
            uint keyLength = BinaryPrimitives.ReadUInt32LittleEndian(chunk[(p + 4)..]);
            if (keyLength is 0 or > RecordFormat.MaxKeyBytes)
            {
                return -1;
            }

            int size = layout.EntryHeaderSize + (int)keyLength;
            if (chunk.Length - p < size)
            {
                break;
            }

            ReadOnlySpan<byte> entry = chunk.Slice(p, size);
            uint valueLength = BinaryPrimitives.ReadUInt32LittleEndian(entry[8..]);
            long offset = BinaryPrimitives.ReadInt64LittleEndian(entry[layout.OffsetAt..]);
            if (valueLength > int.MaxValue || offset < RecordFormat.FileHeaderSize
                || offset > layout.SegmentLength - RecordFormat.RecordSize((int)keyLength, 0) - valueLength)
            {
                return -1;
            }

            if (verify && BinaryPrimitives.ReadUInt32LittleEndian(entry) != Crc32C.Compute(entry[4..]))
            {
                return -1;
            }

            if (typeof(TSink) != typeof(NoSink))
            {
                ReadOnlySpan<byte> key = entry[layout.EntryHeaderSize..];
                int hash = layout.StoredHashes ? BinaryPrimitives.ReadInt32LittleEndian(entry[12..]) : KeyHasher.Hash(key, layout.Seed);
                sink.Entry(key, hash, offset, (int)valueLength);
            }

            p += size;
            entries++;
        }

        return p;
    }

    /// <summary>Where a file's entries start and what their fields are, from its header.</summary>
    private readonly struct Layout(HintHeader header, long segmentLength, ulong seed)
    {
        public readonly long FirstEntry = header.CarriesHashes ? HeaderSizeV2 : HeaderSizeV1;
        public readonly int EntryHeaderSize = header.CarriesHashes ? EntryHeaderSizeV2 : EntryHeaderSizeV1;
        public readonly int OffsetAt = header.CarriesHashes ? 16 : 12;
        public readonly long SegmentLength = segmentLength;
        public readonly ulong Seed = seed;

        /// <summary>Whether an entry's stored hash is the one asked for (else each key is hashed under <see cref="Seed"/>).</summary>
        public readonly bool StoredHashes = header.CarriesHashes && header.Seed == seed;

        private readonly int _count = header.CarriesHashes ? header.Count : -1;

        /// <summary>A version 2 header says how many entries follow; a file holding another number is damaged.</summary>
        public bool CountMatches(int entries) => _count < 0 || entries == _count;
    }

    /// <summary>
    /// <see cref="TryLoadOnce{TSink}"/> on two threads: a reader thread reads each chunk into one
    /// of three buffers, checks its bounds (<see cref="Take"/> without CRCs) and stages its
    /// entries; the caller's thread checks the chunk's CRCs, then finishes its entries, chunk by
    /// chunk in file order (the CRCs are on the caller's side because that balances the two: at a
    /// 1M-key reopen, reading, parsing and the arena against CRCs and the slot table). At the first
    /// damage the walk returns false having finished only the chunks before it, as the one-thread
    /// walk does; entries of the damaged chunk may have been staged, which is why a staged sink's
    /// caller must be able to drop them (a bulk load abandons). Whatever ends the walk (the end,
    /// damage, an exception on either thread), the reader has exited and no buffer is in use when
    /// it returns.
    /// </summary>
    private sealed class ReadAhead<TSink> : IDisposable
        where TSink : struct, IStagedHintSink
    {
        private const int Depth = 3;

        private readonly IStorageFile _hint;
        private readonly Layout _layout;
        private readonly TSink _sink;
        private readonly byte[][] _buffers = new byte[Depth][];
        private readonly long[][] _staged = new long[Depth][];
        private readonly int[] _whole = new int[Depth];
        private readonly int[] _counts = new int[Depth];
        private readonly SemaphoreSlim _free = new(Depth);
        private readonly SemaphoreSlim _filled = new(0);
        private readonly Thread _reader;
        private int _produced;
        private int _entries;
        private bool _damaged;
        private bool _stop;
        private ExceptionDispatchInfo? _failure;

        public ReadAhead(IStorageFile hint, Layout layout, byte[] first, TSink sink)
        {
            _hint = hint;
            _layout = layout;
            _sink = sink;
            _buffers[0] = first;
            for (int i = 1; i < Depth; i++)
            {
                _buffers[i] = ArrayPool<byte>.Shared.Rent(first.Length);
            }

            // A read holds at most this many entries (each is at least a header and a 1-byte key).
            int most = (first.Length / (layout.EntryHeaderSize + 1)) + 1;
            for (int i = 0; i < Depth; i++)
            {
                _staged[i] = ArrayPool<long>.Shared.Rent(most);
            }

            _reader = new Thread(Read) { IsBackground = true, Name = "taildb-hint-read" };
            _reader.Start();
        }

        public bool Walk()
        {
            for (int consumed = 0; ; consumed++)
            {
                _filled.Wait();
                if (consumed == Volatile.Read(ref _produced))
                {
                    // The reader's last release: it has ended, and wrote how before releasing.
                    _failure?.Throw();
                    return !_damaged && _layout.CountMatches(_entries);
                }

                int slot = consumed % Depth;
                int entries = 0;
                var crcsOnly = default(NoSink);
                if (Take(_buffers[slot].AsSpan(0, _whole[slot]), _layout, verify: true, ref entries, ref crcsOnly) != _whole[slot])
                {
                    return false; // a CRC failed: some of this read was staged, none of it is finished
                }

                foreach (long staged in _staged[slot].AsSpan(0, _counts[slot]))
                {
                    _sink.Finish(staged);
                }

                _free.Release();
            }
        }

        private void Read()
        {
            try
            {
                long length = _hint.Length;
                long position = _layout.FirstEntry;
                for (int slot = 0; position < length; slot = (slot + 1) % Depth)
                {
                    _free.Wait();
                    if (Volatile.Read(ref _stop))
                    {
                        return;
                    }

                    byte[] buffer = _buffers[slot];
                    int count = _hint.Read(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - position)), position);
                    var stager = new Stager<TSink>(_sink, _staged[slot]);
                    int whole = count <= 0 ? 0 : Take(buffer.AsSpan(0, count), _layout, verify: false, ref _entries, ref stager);
                    if (whole <= 0)
                    {
                        _damaged = true;
                        return;
                    }

                    _whole[slot] = whole;
                    _counts[slot] = stager.Count;
                    position += whole;
                    Volatile.Write(ref _produced, _produced + 1);
                    _filled.Release();
                }
            }
            catch (Exception e)
            {
                _failure = ExceptionDispatchInfo.Capture(e);
            }
            finally
            {
                _filled.Release(); // the end: the caller finds no new chunk behind this release
            }
        }

        public void Dispose()
        {
            // The caller may leave early (its sink threw): let a reader waiting for a buffer go.
            Volatile.Write(ref _stop, true);
            _free.Release(Depth);
            _reader.Join();
            for (int i = 0; i < Depth; i++)
            {
                if (i > 0)
                {
                    ArrayPool<byte>.Shared.Return(_buffers[i]);
                }

                ArrayPool<long>.Shared.Return(_staged[i]);
            }

            _free.Dispose();
            _filled.Dispose();
        }
    }

    /// <summary>Starts a <see cref="ReadAhead{TSink}"/>; a class of its own so the generic type is named once.</summary>
    private static class ReadAhead
    {
        public static bool Walk<TSink>(IStorageFile hint, Layout layout, byte[] buffer, TSink sink)
            where TSink : struct, IStagedHintSink
        {
            using var ahead = new ReadAhead<TSink>(hint, layout, buffer, sink);
            return ahead.Walk();
        }
    }

    /// <summary>Both stages at once, on one thread.</summary>
    private readonly struct Unstaged<TSink>(TSink sink) : IHintEntrySink
        where TSink : struct, IStagedHintSink
    {
        public void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength) => sink.Finish(sink.Stage(key, hash, offset, valueLength));
    }

    /// <summary>Stages entries into a span, counting them.</summary>
    private ref struct Stager<TSink>(TSink sink, Span<long> staged) : IHintEntrySink
        where TSink : struct, IStagedHintSink
    {
        private readonly Span<long> _staged = staged;

        public int Count { get; private set; }

        public void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength) => _staged[Count++] = sink.Stage(key, hash, offset, valueLength);
    }

    /// <summary>Takes nothing: the verifying pass of <see cref="TryLoad"/>.</summary>
    private struct NoSink : IHintEntrySink
    {
        public readonly void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength)
        {
        }
    }

    private readonly struct DelegateSink(HintEntryHandler apply) : IHintEntrySink
    {
        public void Entry(ReadOnlySpan<byte> key, int hash, long offset, int valueLength) => apply(key, hash, offset, valueLength);
    }
}
