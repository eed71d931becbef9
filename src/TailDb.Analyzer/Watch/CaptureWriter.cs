using System.Buffers.Binary;
using System.Diagnostics.Tracing;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// Writes a ring snapshot as a .nettrace that reads alone: the session's stream header and Trace
/// object, every MetadataBlock, one EventBlock re-encoding the method loads seen before the window
/// (a continuous session's rundown only comes at its end), the held stack blocks of the window's
/// first sequence-point region, the window's blocks, and the end-of-stream tag (TraceEvent
/// dispatches the events after the last sequence point only when it sees that tag). After the window,
/// where a stopped session's rundown would be, the rundown asked for at capture time
/// (<see cref="RundownRequest"/>) under a metadata record of its own. Blocks are
/// re-framed, since their alignment padding depends on where they land in the new file. The file is
/// written under a temporary name and renamed when whole, so a capture is never half-written.
/// </summary>
internal static class CaptureWriter
{
    private const byte NullReferenceTag = 1;
    private const byte EndObjectTag = 6;

    public static long Write(string path, RingSnapshot snapshot, IReadOnlyList<KeptMethodLoad> methodLoads, RundownMethods? rundown = null)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(snapshot);
        ArgumentNullException.ThrowIfNull(methodLoads);
        var temporary = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(path))!, "." + Path.GetFileName(path) + ".partial");
        try
        {
            long length;
            using (var file = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20))
            {
                file.Write(snapshot.Prologue);
                foreach (var block in snapshot.Metadata)
                {
                    WriteBlock(file, block.TypeHeader, block.Payload);
                }

                var firstWindowTimestamp = snapshot.Blocks.Count > 0 ? snapshot.Blocks[0].MaxTimestamp : long.MaxValue;
                if (snapshot.EventBlockTypeHeader is { } eventType && EventBlock(methodLoads, KeptMethodLoad.CaptureThreadId, firstWindowTimestamp) is { } loads)
                {
                    WriteBlock(file, eventType, loads);
                }

                foreach (var block in snapshot.HeldStacks)
                {
                    WriteBlock(file, block.TypeHeader, block.Payload);
                }

                foreach (var block in snapshot.Blocks)
                {
                    WriteBlock(file, block.TypeHeader, block.Payload);
                }

                if (rundown is { Payloads.Count: > 0 } && snapshot.EventBlockTypeHeader is { } type && snapshot.Metadata.Count > 0)
                {
                    // The rundown came after the window: its events sit just past the window's last.
                    var after = snapshot.Blocks.Count > 0 ? snapshot.Blocks.Max(b => b.MaxTimestamp) + 1 : 1;
                    var metadataId = MaxMetadataId(snapshot.Metadata) + 1;
                    WriteBlock(file, snapshot.Metadata[0].TypeHeader, EventBlock([new KeptMethodLoad(0, 0, after, RundownMetadata(metadataId, rundown.Version))], 0, long.MaxValue)!);
                    WriteBlock(file, type, EventBlock([.. rundown.Payloads.Select(p => new KeptMethodLoad(metadataId, 0, after, p))], KeptMethodLoad.CaptureThreadId + 1, long.MaxValue)!);
                }

                file.WriteByte(NullReferenceTag);
                file.Flush(flushToDisk: true);
                length = file.Length;
            }

            File.Move(temporary, path, overwrite: true);
            return length;
        }
        catch
        {
            File.Delete(temporary);
            throw;
        }
    }

    private static void WriteBlock(FileStream file, byte[] typeHeader, byte[] payload)
    {
        Span<byte> scratch = stackalloc byte[8];
        file.Write(typeHeader);
        BinaryPrimitives.WriteInt32LittleEndian(scratch, payload.Length);
        file.Write(scratch[..4]);
        var pad = (int)((4 - (file.Position & 3)) & 3);
        scratch.Clear();
        file.Write(scratch[..pad]);
        file.Write(payload);
        file.WriteByte(EndObjectTag);
    }

    /// <summary>The largest metadata id the session's MetadataBlocks define (a new record takes the next).</summary>
    private static int MaxMetadataId(IReadOnlyList<RingBlock> metadata)
    {
        var max = 0;
        foreach (var block in metadata)
        {
            var reader = new EventBlockReader(block.Payload);
            while (reader.MoveNext())
            {
                if (MetadataRecord.TryRead(reader.Payload, out var record))
                {
                    max = Math.Max(max, record.MetadataId);
                }
            }
        }

        return max;
    }

    /// <summary>
    /// A metadata event naming the rundown's MethodDCEndVerbose (NetTraceFormat_v5: id, provider,
    /// event id, name, keywords, version, level, no field list: readers know the runtime's events).
    /// </summary>
    private static byte[] RundownMetadata(int metadataId, int version)
    {
        using var body = new MemoryStream();
        using var writer = new BinaryWriter(body, System.Text.Encoding.Unicode);
        writer.Write(metadataId);
        writer.Write(System.Text.Encoding.Unicode.GetBytes(Tracing.Recording.RecordingProviders.Rundown + "\0"));
        writer.Write(MethodDCEndVerboseEventId);
        writer.Write(System.Text.Encoding.Unicode.GetBytes("MethodDCEndVerbose\0"));
        writer.Write(JitRundownKeyword);
        writer.Write(version);
        writer.Write((int)EventLevel.Verbose);
        writer.Write(0); // field count
        writer.Flush();
        return body.ToArray();
    }

    private const int MethodDCEndVerboseEventId = 144;
    private const long JitRundownKeyword = 0x10;

    /// <summary>
    /// One EventBlock (compressed headers) holding <paramref name="events"/> older than
    /// <paramref name="beforeTimestamp"/>, under a capture-thread id of their own so their sequence
    /// numbers never look like events lost on a real thread. Null when there are none.
    /// </summary>
    private static byte[]? EventBlock(IReadOnlyList<KeptMethodLoad> loads, ulong captureThreadId, long beforeTimestamp)
    {
        using var body = new MemoryStream();
        long min = long.MaxValue, max = 0, previousTimestamp = 0;
        var count = 0;
        Span<byte> scratch = stackalloc byte[10];
        foreach (var load in loads)
        {
            if (load.Timestamp >= beforeTimestamp)
            {
                break;
            }

            // Flags: metadata id, capture thread + sequence, thread id, stack id, payload size.
            body.WriteByte(1 | 2 | 4 | 8 | 128);
            WriteVar(body, (ulong)load.MetadataId, scratch);
            WriteVar(body, 0, scratch); // sequence delta: each event is the previous one + 1
            WriteVar(body, captureThreadId, scratch);
            WriteVar(body, 0, scratch); // processor
            WriteVar(body, (ulong)load.ThreadId, scratch);
            WriteVar(body, 0, scratch); // no stack
            WriteVar(body, (ulong)(load.Timestamp - previousTimestamp), scratch);
            WriteVar(body, (ulong)load.Payload.Length, scratch);
            body.Write(load.Payload);
            previousTimestamp = load.Timestamp;
            min = Math.Min(min, load.Timestamp);
            max = Math.Max(max, load.Timestamp);
            count++;
        }

        if (count == 0)
        {
            return null;
        }

        var block = new byte[20 + body.Length];
        BinaryPrimitives.WriteInt16LittleEndian(block, 20);
        BinaryPrimitives.WriteInt16LittleEndian(block.AsSpan(2), 1);
        BinaryPrimitives.WriteInt64LittleEndian(block.AsSpan(4), min);
        BinaryPrimitives.WriteInt64LittleEndian(block.AsSpan(12), max);
        body.GetBuffer().AsSpan(0, (int)body.Length).CopyTo(block.AsSpan(20));
        return block;
    }

    private static void WriteVar(MemoryStream stream, ulong value, Span<byte> scratch)
    {
        var n = 0;
        do
        {
            var b = (byte)(value & 0x7F);
            value >>= 7;
            scratch[n++] = value != 0 ? (byte)(b | 0x80) : b;
        }
        while (value != 0);

        stream.Write(scratch[..n]);
    }
}

/// <summary>A MethodLoadVerbose event kept for the whole session: the name of a method jitted before a window began.</summary>
internal sealed record KeptMethodLoad(int MetadataId, long ThreadId, long Timestamp, byte[] Payload)
{
    /// <summary>No real thread has it: the re-encoded events' sequence numbers are their own.</summary>
    public const ulong CaptureThreadId = 0x7FFF_FFFF_FFFF_0001;
}
