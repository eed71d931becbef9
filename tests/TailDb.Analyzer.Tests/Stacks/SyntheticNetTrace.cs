using TailDb.Tracing.Recording;
using System.Text;

namespace TailDb.Analyzer.Tests.Stacks;

/// <summary>
/// Writes small V5 .nettrace files by hand (NetTraceFormat_v5.md), for the cases a real runtime
/// trace does not reliably contain: uncompressed event headers, 4-byte pointers, a stack id reused
/// after a sequence point, tiered re-JIT, rundown-only names.
/// </summary>
internal sealed class SyntheticNetTrace : IDisposable
{
    public const string RuntimeProvider = RecordingProviders.Runtime;
    public const string RundownProvider = RecordingProviders.Rundown;
    public const string SampleProfilerProvider = RecordingProviders.SampleProfiler;
    public const long SyncTimeQpc = 1_000;
    public const long QpcFrequency = 1_000_000;

    private readonly MemoryStream _stream = new();
    private readonly BinaryWriter _out;
    private readonly bool _compressed;

    public SyntheticNetTrace(int pointerSize, bool compressedHeaders)
    {
        PointerSize = pointerSize;
        _compressed = compressedHeaders;
        _out = new BinaryWriter(_stream);
        _out.Write("Nettrace"u8);
        _out.Write(20);
        _out.Write("!FastSerialization.1"u8);
        BeginObject("Trace", 4);
        foreach (var part in new short[] { 2026, 11, 0, 22, 3, 0, 0, 0 })
        {
            _out.Write(part);
        }

        _out.Write(SyncTimeQpc);
        _out.Write(QpcFrequency);
        _out.Write(pointerSize);
        _out.Write(4242); // process id
        _out.Write(2); // processors
        _out.Write(1000); // expected sampling rate
        _out.Write((byte)6);
    }

    public int PointerSize { get; }

    public SyntheticNetTrace Metadata(int id, string provider, int eventId, string eventName)
    {
        var payload = new MemoryStream();
        var w = new BinaryWriter(payload);
        w.Write(id);
        WriteUtf16Z(w, provider);
        w.Write(eventId);
        WriteUtf16Z(w, eventName);
        w.Write(0L); // keywords
        w.Write(1); // version
        w.Write(5); // level
        w.Write(0); // field count
        return Block("MetadataBlock", [new Event(0, 0, 0, 0, payload.ToArray())]);
    }

    public SyntheticNetTrace Stacks(int firstId, params ulong[][] stacks)
    {
        var body = new MemoryStream();
        var w = new BinaryWriter(body);
        w.Write(firstId);
        w.Write(stacks.Length);
        foreach (var stack in stacks)
        {
            w.Write(stack.Length * PointerSize);
            foreach (var ip in stack)
            {
                if (PointerSize == 8)
                {
                    w.Write(ip);
                }
                else
                {
                    w.Write((uint)ip);
                }
            }
        }

        WriteBlock("StackBlock", body.ToArray());
        return this;
    }

    public SyntheticNetTrace Events(params Event[] events) => Block("EventBlock", events);

    public SyntheticNetTrace SequencePoint(long timestamp)
    {
        var body = new MemoryStream();
        var w = new BinaryWriter(body);
        w.Write(timestamp);
        w.Write(0); // threads
        WriteBlock("SPBlock", body.ToArray());
        return this;
    }

    /// <summary>A block with a body written elsewhere (the watch tests' hand-built or damaged event blocks).</summary>
    public SyntheticNetTrace RawBlock(string type, byte[] body)
    {
        WriteBlock(type, body);
        return this;
    }

    /// <summary>The stream so far and its end tag, as a session would send it.</summary>
    public byte[] ToArray()
    {
        _out.Write((byte)1); // NullReference: end of stream
        _out.Flush();
        return _stream.ToArray();
    }

    public string Save(string path)
    {
        _out.Write((byte)1); // NullReference: end of stream
        _out.Flush();
        File.WriteAllBytes(path, _stream.ToArray());
        return path;
    }

    public void Dispose()
    {
        _out.Dispose();
        _stream.Dispose();
    }

    public static Event Sample(int metadataId, long thread, int stackId, long timestamp) =>
        new(metadataId, thread, stackId, timestamp, BitConverter.GetBytes(2)); // ClrThreadSampleType.Managed

    /// <summary>MethodLoadVerbose / MethodDCEndVerbose payload, version 1 (ClrInstanceID last).</summary>
    public static Event Method(int metadataId, long timestamp, ulong start, uint size, bool jitted, string ns, string name, string signature)
    {
        var payload = new MemoryStream();
        var w = new BinaryWriter(payload);
        w.Write(start ^ 0xABCDEF); // method id
        w.Write(0x1234UL); // module id
        w.Write(start);
        w.Write(size);
        w.Write(0x06000001); // token
        w.Write(jitted ? 0x8 : 0x0);
        WriteUtf16Z(w, ns);
        WriteUtf16Z(w, name);
        WriteUtf16Z(w, signature);
        w.Write((ushort)0); // ClrInstanceID
        return new Event(metadataId, 1, 0, timestamp, payload.ToArray());
    }

    private SyntheticNetTrace Block(string type, Event[] events)
    {
        var body = new MemoryStream();
        var w = new BinaryWriter(body);
        w.Write((short)20);
        w.Write((short)(_compressed ? 1 : 0));
        w.Write(events.Length == 0 ? 0L : events.Min(e => e.Timestamp));
        w.Write(events.Length == 0 ? 0L : events.Max(e => e.Timestamp));
        long previousTimestamp = 0;
        foreach (var e in events)
        {
            if (_compressed)
            {
                w.Write((byte)(1 | 2 | 4 | 8 | 128));
                WriteVarUInt(w, (ulong)e.MetadataId);
                WriteVarUInt(w, 0); // sequence delta
                WriteVarUInt(w, (ulong)e.ThreadId); // capture thread
                WriteVarUInt(w, 0); // processor
                WriteVarUInt(w, (ulong)e.ThreadId);
                WriteVarUInt(w, (ulong)e.StackId);
                WriteVarUInt(w, unchecked((ulong)(e.Timestamp - previousTimestamp)));
                WriteVarUInt(w, (ulong)e.Payload.Length);
                w.Write(e.Payload);
                previousTimestamp = e.Timestamp;
            }
            else
            {
                w.Write(76 + e.Payload.Length);
                w.Write(e.MetadataId);
                w.Write(1); // sequence number
                w.Write(e.ThreadId);
                w.Write(e.ThreadId); // capture thread
                w.Write(0); // processor
                w.Write(e.StackId);
                w.Write(e.Timestamp);
                w.Write(new byte[32]); // activity ids
                w.Write(e.Payload.Length);
                w.Write(e.Payload);
                while (body.Length % 4 != 0)
                {
                    w.Write((byte)0); // block bodies start 4-aligned in the file
                }
            }
        }

        WriteBlock(type, body.ToArray());
        return this;
    }

    private void WriteBlock(string type, byte[] body)
    {
        BeginObject(type, 2);
        _out.Write(body.Length);
        _out.Flush();
        while (_stream.Position % 4 != 0)
        {
            _out.Write((byte)0);
        }

        _out.Write(body);
        _out.Write((byte)6);
    }

    private void BeginObject(string type, int version)
    {
        _out.Write((byte)5);
        _out.Write((byte)5);
        _out.Write((byte)1);
        _out.Write(version);
        _out.Write(version);
        _out.Write(type.Length);
        _out.Write(Encoding.ASCII.GetBytes(type));
        _out.Write((byte)6);
    }

    private static void WriteUtf16Z(BinaryWriter w, string text)
    {
        w.Write(Encoding.Unicode.GetBytes(text));
        w.Write((short)0);
    }

    private static void WriteVarUInt(BinaryWriter w, ulong value)
    {
        while (value >= 0x80)
        {
            w.Write((byte)(value | 0x80));
            value >>= 7;
        }

        w.Write((byte)value);
    }

    internal sealed record Event(int MetadataId, long ThreadId, int StackId, long Timestamp, byte[] Payload);
}
