using System.Buffers.Binary;
using System.Runtime.InteropServices;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Watch;

/// <summary>Sees every whole block as the ring receives it (on the session's reader thread).</summary>
internal interface IRingObserver
{
    void OnPrologue(long syncTimeQpc, long qpcFrequency);

    /// <summary>
    /// Reads a MetadataBlock's or EventBlock's events before the ring stores the block: the one walk
    /// over them. Adds to <paramref name="stackIds"/> each nonzero stack id an event names (the ring
    /// holds those stacks past eviction); repeats are allowed. False when the block breaks the
    /// format: the ring then drops it, so a capture never holds a block TraceEvent cannot read.
    /// </summary>
    bool Read(BlockKind kind, ReadOnlySpan<byte> payload, List<int> stackIds);

    /// <summary>After the block is stored: a capture fired here includes it.</summary>
    void OnBlock(RingBlock block, NetTraceRing ring);
}

/// <summary>
/// The flight recorder's memory: the write end of one continuous EventPipe session's stream. It
/// splits the raw bytes into whole blocks as they arrive (the stream header and Trace object, then
/// MetadataBlock, StackBlock, EventBlock and SPBlock objects), keeps every MetadataBlock for the
/// whole session (later events refer to it), and keeps the other blocks for the last
/// <see cref="RingLimits.Window"/> of event time, never more than <see cref="RingLimits.MaxBytes"/>.
/// Stack blocks of the oldest sequence-point region are held past eviction while any block of that
/// region remains, since its events name stacks by ids those blocks define.
/// </summary>
internal sealed class NetTraceRing(RingLimits limits, IRingObserver observer) : Stream
{
    /// <summary>Evicted bytes between two gen2 collections (<see cref="CollectEvicted"/>).</summary>
    internal const long CollectEveryEvictedBytes = 16 << 20;

    // Snapshots may be taken off the reader thread (a capture whose margin never arrived); never held while calling the observer.
    private readonly object _sync = new();
    private readonly Queue<RingBlock> _blocks = new();
    private readonly List<RingBlock> _metadata = [];
    // Stacks of the oldest region whose StackBlock has left the ring but which an event still in the
    // ring names (by id; ids restart at each sequence point). Counted by reference, so the held set is
    // bounded by the window's events, not by the region's length (the runtime may go minutes between
    // sequence points).
    private readonly Dictionary<(int Epoch, int Id), int> _stackReferences = [];
    private readonly SortedDictionary<int, byte[]> _heldStacks = [];
    private int _heldEpoch = -1;
    private long _heldStackBytes;
    private readonly Dictionary<BlockKind, byte[]> _typeHeaders = [];
    private readonly List<int> _stackIds = [];
    private byte[] _pending = new byte[1 << 20];
    private int _pendingLength;
    private long _pendingStreamOffset;
    private long _newestTimestamp;
    private long _windowTicks;
    private int _epoch;
    private long _evictedSinceCollect;

    /// <summary>The stream header and Trace object, byte for byte (a capture starts with them).</summary>
    public byte[]? Prologue { get; private set; }

    public long QpcFrequency { get; private set; }

    public long SyncTimeQpc { get; private set; }

    /// <summary>Bytes held: the window's blocks, held stacks and the session's metadata.</summary>
    public long HeldBytes { get; private set; }

    public long MetadataBytes { get; private set; }

    public long ReceivedBytes { get; private set; }

    public long EvictedBlocks { get; private set; }

    /// <summary>Blocks whose events broke the format, dropped (never stored, never in a capture).</summary>
    public long CorruptBlocks { get; private set; }

    /// <summary>Stacks named by an event still in the ring but dropped to stay within --max-bytes.</summary>
    public long DroppedStacks { get; private set; }

    public long HeldStackBytes => _heldStackBytes;

    /// <summary>Gen2 collections this ring asked for, to free evicted blocks.</summary>
    public long Collections { get; private set; }

    /// <summary>Event time covered by the ring, oldest block to newest.</summary>
    public double SpanMSec => _blocks.Count == 0 || QpcFrequency == 0 ? 0 : (_newestTimestamp - _blocks.Peek().MaxTimestamp) * 1000.0 / QpcFrequency;

    public long NewestTimestamp => _newestTimestamp;

    public bool EndedWithMarker { get; private set; }

    public RingLimits Limits => limits;

    public double ToMSec(long timestamp) => QpcFrequency == 0 ? 0 : (timestamp - SyncTimeQpc) * 1000.0 / QpcFrequency;

    /// <summary>Everything a capture needs, as of now: blocks are immutable, so the lists can be written later.</summary>
    public RingSnapshot Snapshot()
    {
        lock (_sync)
        {
            return new(Prologue ?? [], [.. _metadata], HeldStackBlocks(), [.. _blocks], _typeHeaders.GetValueOrDefault(BlockKind.Event));
        }
    }

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        ReceivedBytes += buffer.Length;
        if (_pending.Length - _pendingLength < buffer.Length)
        {
            Array.Resize(ref _pending, Math.Max(_pending.Length * 2, _pendingLength + buffer.Length));
        }

        buffer.CopyTo(_pending.AsSpan(_pendingLength));
        _pendingLength += buffer.Length;
        var consumed = 0;
        while (!EndedWithMarker && TryReadObject(_pending.AsSpan(consumed, _pendingLength - consumed), _pendingStreamOffset + consumed, out var used))
        {
            consumed += used;
        }

        // Most writes end inside a block: move the rest down only when whole blocks were taken.
        if (consumed > 0)
        {
            _pending.AsSpan(consumed, _pendingLength - consumed).CopyTo(_pending);
            _pendingLength -= consumed;
            _pendingStreamOffset += consumed;
        }
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        Write(buffer.AsSpan(offset, count));
        return Task.CompletedTask;
    }

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        Write(buffer.Span);
        return ValueTask.CompletedTask;
    }

    private bool TryReadObject(ReadOnlySpan<byte> data, long streamOffset, out int used)
    {
        used = 0;
        if (Prologue is null)
        {
            return TryReadPrologue(data, out used);
        }

        if (!NetTraceObjects.TryRead(data, streamOffset, out var bounds))
        {
            return false;
        }

        used = bounds.Length;
        if (bounds.EndOfStream)
        {
            EndedWithMarker = true;
            return true;
        }

        // Each known kind's header is shared by all its blocks; an unknown type keeps its own.
        var kind = bounds.Kind;
        if (kind == BlockKind.Other || !_typeHeaders.TryGetValue(kind, out var typeHeader))
        {
            typeHeader = data[..bounds.TypeEnd].ToArray();
            _typeHeaders[kind] = typeHeader;
        }

        Add(kind, typeHeader, data.Slice(bounds.PayloadStart, bounds.Size));
        return true;
    }

    private bool TryReadPrologue(ReadOnlySpan<byte> data, out int used)
    {
        used = 0;
        if (!NetTraceObjects.TryReadPrologue(data, out var header))
        {
            return false;
        }

        used = header.Length;
        SyncTimeQpc = header.SyncTimeQpc;
        QpcFrequency = header.QpcFrequency;
        Prologue = data[..used].ToArray();
        _windowTicks = (long)(limits.Window.TotalSeconds * QpcFrequency);
        HeldBytes += used;
        observer.OnPrologue(SyncTimeQpc, QpcFrequency);
        return true;
    }

    private void Add(BlockKind kind, byte[] typeHeader, ReadOnlySpan<byte> payload)
    {
        _stackIds.Clear();
        if (kind is BlockKind.Event or BlockKind.Metadata && !observer.Read(kind, payload, _stackIds))
        {
            CorruptBlocks++;
            return;
        }

        var maxTimestamp = kind == BlockKind.Event ? MaxTimestampOf(payload) : _newestTimestamp;
        if (kind == BlockKind.SequencePoint)
        {
            _epoch++;
        }

        // Not zeroed first: the copy below fills it (blocks are tens of KB, and the ring churns its size every window).
        var bytes = GC.AllocateUninitializedArray<byte>(payload.Length);
        payload.CopyTo(bytes);
        var block = new RingBlock(kind, typeHeader, bytes, Math.Max(maxTimestamp, _newestTimestamp), _epoch)
        {
            StackIds = Distinct(_stackIds),
        };
        lock (_sync)
        {
            _newestTimestamp = block.MaxTimestamp;
            HeldBytes += block.Bytes;
            if (kind == BlockKind.Metadata)
            {
                _metadata.Add(block);
                MetadataBytes += block.Bytes;
                Evict();
            }
            else
            {
                foreach (var id in block.StackIds)
                {
                    _stackReferences[(block.Epoch, id)] = _stackReferences.GetValueOrDefault((block.Epoch, id)) + 1;
                }

                _blocks.Enqueue(block);
                Evict();
            }
        }

        CollectEvicted();

        // After storing: a capture fired by this block includes it.
        observer.OnBlock(block, this);
    }

    /// <summary>
    /// Evicted blocks are garbage the size of the stream, most of them on the large object heap
    /// (EventPipe's blocks run to ~100 KB), which only a gen2 collection frees; with the ring always
    /// live, the runtime's gen2 budget grows with it, and left to itself the watch held about a ring's
    /// worth of evicted blocks (64 MiB ring, full-ring capture: 217 MiB peak). A blocking gen2 every
    /// <see cref="CollectEveryEvictedBytes"/> evicted keeps that garbage within a constant. It runs
    /// here, in the watch process only, and costs a mark of a few thousand objects (byte arrays hold no
    /// references): milliseconds every few seconds of stream.
    /// </summary>
    private void CollectEvicted()
    {
        if (_evictedSinceCollect < CollectEveryEvictedBytes)
        {
            return;
        }

        _evictedSinceCollect = 0;
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: false);
        Collections++;
    }

    private void Evict()
    {
        while (_blocks.Count > 1 && (HeldBytes > limits.MaxBytes || _newestTimestamp - _blocks.Peek().MaxTimestamp > _windowTicks))
        {
            var old = _blocks.Dequeue();
            EvictedBlocks++;
            _evictedSinceCollect += old.Bytes;
            HeldBytes -= old.Bytes;
            foreach (var id in old.StackIds)
            {
                Release(old.Epoch, id);
            }

            if (_heldEpoch >= 0 && _heldEpoch != _blocks.Peek().Epoch)
            {
                ClearHeld();
            }

            if (old.Kind == BlockKind.Stack && old.Epoch == _blocks.Peek().Epoch)
            {
                Hold(old);
            }
        }
    }

    private void Release(int epoch, int id)
    {
        var count = _stackReferences[(epoch, id)] - 1;
        if (count > 0)
        {
            _stackReferences[(epoch, id)] = count;
            return;
        }

        _stackReferences.Remove((epoch, id));
        // In the newest region a later event may still name the stack (the runtime sends each stack once per region).
        if (epoch == _heldEpoch && epoch != _epoch && _heldStacks.Remove(id, out var bytes))
        {
            _heldStackBytes -= bytes.Length + 8;
            HeldBytes -= bytes.Length + 8;
        }
    }

    /// <summary>Keeps, from a StackBlock leaving the ring, the stacks that events still in the ring name.</summary>
    private void Hold(RingBlock block)
    {
        _heldEpoch = block.Epoch;
        var cursor = new NetTraceCursor(block.Payload, 0, "StackBlock");
        var id = cursor.ReadInt32();
        var count = cursor.ReadInt32();
        for (var i = 0; i < count; i++, id++)
        {
            var size = cursor.ReadInt32();
            var bytes = cursor.ReadBytes(size);
            if (block.Epoch == _epoch || _stackReferences.ContainsKey((block.Epoch, id)))
            {
                _heldStacks[id] = bytes.ToArray();
                _heldStackBytes += size + 8;
                HeldBytes += size + 8;
            }
        }

        TrimHeld();
    }

    /// <summary>
    /// Held stacks get a quarter of --max-bytes. Past it, the oldest stacks no event in the ring names go
    /// first, then the oldest named ones (counted in <see cref="DroppedStacks"/>: their events read as
    /// stackless in a capture, as TraceEvent reads an id with no StackBlock).
    /// </summary>
    private void TrimHeld()
    {
        var budget = limits.MaxBytes / 4;
        for (var pass = 0; pass < 2 && _heldStackBytes > budget; pass++)
        {
            foreach (var (id, bytes) in _heldStacks.ToList())
            {
                if (_heldStackBytes <= budget)
                {
                    break;
                }

                var named = _stackReferences.ContainsKey((_heldEpoch, id));
                if (pass == 0 && named)
                {
                    continue;
                }

                _heldStacks.Remove(id);
                _heldStackBytes -= bytes.Length + 8;
                HeldBytes -= bytes.Length + 8;
                DroppedStacks += named ? 1 : 0;
            }
        }
    }

    private void ClearHeld()
    {
        HeldBytes -= _heldStackBytes;
        _heldStackBytes = 0;
        _heldStacks.Clear();
        _heldEpoch = -1;
    }

    /// <summary>The held stacks as StackBlocks, one per run of consecutive ids (a StackBlock is a first id, a count, then each stack).</summary>
    private List<RingBlock> HeldStackBlocks()
    {
        var blocks = new List<RingBlock>();
        if (_heldStacks.Count == 0 || !_typeHeaders.TryGetValue(BlockKind.Stack, out var typeHeader))
        {
            return blocks;
        }

        using var run = new MemoryStream();
        int first = -1, next = -1, count = 0;
        void Flush()
        {
            if (count == 0)
            {
                return;
            }

            var payload = new byte[8 + run.Length];
            BinaryPrimitives.WriteInt32LittleEndian(payload, first);
            BinaryPrimitives.WriteInt32LittleEndian(payload.AsSpan(4), count);
            run.GetBuffer().AsSpan(0, (int)run.Length).CopyTo(payload.AsSpan(8));
            blocks.Add(new RingBlock(BlockKind.Stack, typeHeader, payload, 0, _heldEpoch));
            run.SetLength(0);
            count = 0;
        }

        Span<byte> size = stackalloc byte[4];
        foreach (var (id, bytes) in _heldStacks)
        {
            if (id != next)
            {
                Flush();
                first = id;
            }

            BinaryPrimitives.WriteInt32LittleEndian(size, bytes.Length);
            run.Write(size);
            run.Write(bytes);
            count++;
            next = id + 1;
        }

        Flush();
        return blocks;
    }

    /// <summary>The distinct ids of <paramref name="ids"/> (most event blocks name none: no allocation then).</summary>
    private static int[] Distinct(List<int> ids)
    {
        if (ids.Count == 0)
        {
            return [];
        }

        var span = CollectionsMarshal.AsSpan(ids);
        span.Sort();
        var count = 1;
        for (var i = 1; i < span.Length; i++)
        {
            if (span[i] != span[count - 1])
            {
                span[count++] = span[i];
            }
        }

        return span[..count].ToArray();
    }

    /// <summary>V5 EventBlock headers carry the block's min and max timestamps after size and flags.</summary>
    private long MaxTimestampOf(ReadOnlySpan<byte> payload)
    {
        if (payload.Length >= 20 && BinaryPrimitives.ReadInt16LittleEndian(payload) >= 20)
        {
            return BinaryPrimitives.ReadInt64LittleEndian(payload[12..]);
        }

        var reader = new EventBlockReader(payload);
        var max = _newestTimestamp;
        while (reader.MoveNext())
        {
            max = Math.Max(max, reader.Timestamp);
        }

        return max;
    }

    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => ReceivedBytes; set => throw new NotSupportedException(); }

    public override void Flush()
    {
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}

/// <param name="Window">Event time kept, newest block back.</param>
/// <param name="MaxBytes">Bytes kept at most (metadata and held stacks included); the window shrinks to fit.</param>
internal sealed record RingLimits(TimeSpan Window, long MaxBytes);

/// <summary>A capture's source: what the ring held at one moment.</summary>
internal sealed record RingSnapshot(
    byte[] Prologue, IReadOnlyList<RingBlock> Metadata, IReadOnlyList<RingBlock> HeldStacks, IReadOnlyList<RingBlock> Blocks, byte[]? EventBlockTypeHeader);
