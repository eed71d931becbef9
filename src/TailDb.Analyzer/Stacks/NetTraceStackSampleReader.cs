using TailDb.Tracing.Recording;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Text;
using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// Reads the sample profiler's stacks straight from a V4/V5 .nettrace in one streaming pass,
/// without TraceLog's ETLX conversion.
/// <para>
/// Why a hand reader: TraceEvent 3.2.5 parses EventPipe stacks but keeps them internal.
/// EventPipeEventSource resolves each event's stack id into the native event record's
/// extended data (TraceEvent.eventRecord, internal, pointer-typed) and its StackCache is
/// internal too; the only public consumer is TraceLog, which first copies every event into an
/// ETLX file. Reaching the internals by reflection would tie us to private layouts of one
/// package build, so this reader decodes the blocks itself, with Sources/NetTrace's one reader (NetTraceFormat.md).
/// </para>
/// <para>
/// Memory stays bounded by the trace's variety, not its length: one reused block buffer, the
/// current sequence-point region's stack bytes (stack ids restart after every SPBlock), one
/// interned copy of each distinct sampled stack, and 24 bytes per sample. Method names are
/// resolved once at the end: code that ran before the session is only named by the rundown,
/// which comes last, and only rundown methods that cover a sampled address are kept.
/// </para>
/// </summary>
public sealed class NetTraceStackSampleReader : IStackSampleReader
{
    public StackSampleSet Read(string nettracePath, CancellationToken cancellationToken = default)
    {
        try
        {
            using var stream = new NetTraceObjectStream(nettracePath);
            return new Pass(stream, cancellationToken).Run();
        }
        catch (TraceFormatException e)
        {
            throw new TraceFormatException(e.Problem, $"{nettracePath}: {e.Message}", e);
        }
    }

    private enum EventKind : byte
    {
        Other,
        ThreadSample,
        JitMethodLoad,
        MethodUnload,
        RundownMethod,
    }

    private sealed class Pass(NetTraceObjectStream stream, CancellationToken cancellationToken)
    {
        private const string RuntimeProvider = RecordingProviders.Runtime;
        private const string RundownProvider = RecordingProviders.Rundown;
        private const string SampleProfilerProvider = RecordingProviders.SampleProfiler;
        private const int ThreadSampleEventId = 0;
        private const int MethodLoadVerboseEventId = 143;
        private const int MethodUnloadVerboseEventId = 144;
        private const int MethodDCStartVerboseEventId = 143;
        private const int MethodDCEndVerboseEventId = 144;
        private const uint MethodFlagJitted = 0x8;
        private const int ClrThreadSampleManaged = 2;

        // Indexed by metadata id (the runtime numbers them 1, 2, 3, ...): one array load per event.
        private EventKind[] _kinds = new EventKind[256];
        private readonly Dictionary<int, RegionStack> _regionStacks = [];
        private readonly AddressStackTable _addressStacks = new();
        private readonly MethodRangeTable _methods = new();
        private readonly List<RawSample> _samples = [];
        private byte[] _regionBytes = new byte[1 << 16];
        private int _regionLength;
        private ulong[] _scratch = new ulong[256];
        private ulong[] _sortedAddresses = [];
        private int _sortedAddressVersion = -1;
        private int _pointerSize;
        private long _syncTimeQpc;
        private long _qpcFrequency;

        public StackSampleSet Run()
        {
            stream.ReadStreamHeader();
            var sawTrace = false;
            while (stream.TryBeginObject(out var typeName, out var version))
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (typeName == "Trace")
                {
                    ReadTrace(stream.ReadTraceObjectFields(), version);
                    sawTrace = true;
                    continue;
                }

                if (!sawTrace)
                {
                    throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt trace: a {typeName} comes before the Trace object");
                }

                var block = stream.ReadBlock(typeName, out var offset);
                switch (typeName)
                {
                    case "EventBlock":
                        ReadEvents(block, offset, metadata: false);
                        break;
                    case "MetadataBlock":
                        ReadEvents(block, offset, metadata: true);
                        break;
                    case "StackBlock":
                        ReadStacks(new NetTraceCursor(block, offset, typeName));
                        break;
                    case "SPBlock":
                        _regionStacks.Clear();
                        _regionLength = 0;
                        break;
                    default:
                        break; // Unknown blocks are skippable by design (forward compatibility).
                }
            }

            if (!sawTrace)
            {
                throw new TraceFormatException(TraceFormatProblem.Truncated, "the trace is truncated: it ends before its Trace object");
            }

            return Resolve();
        }

        private void ReadTrace(ReadOnlySpan<byte> fields, int version)
        {
            if (version is < 4 or > 5)
            {
                throw new TraceFormatException(TraceFormatProblem.Corrupt, $"Trace object version {version} is not one this stack reader understands (4 or 5)");
            }

            _syncTimeQpc = BinaryPrimitives.ReadInt64LittleEndian(fields[NetTraceFormat.TraceSyncTimeQpcAt..]);
            _qpcFrequency = BinaryPrimitives.ReadInt64LittleEndian(fields[NetTraceFormat.TraceQpcFrequencyAt..]);
            _pointerSize = BinaryPrimitives.ReadInt32LittleEndian(fields[NetTraceFormat.TracePointerSizeAt..]);
            if (_pointerSize is not (4 or 8) || _qpcFrequency <= 0)
            {
                throw new TraceFormatException(TraceFormatProblem.Corrupt, $"corrupt Trace object: pointer size {_pointerSize}, clock frequency {_qpcFrequency}");
            }
        }

        private void ReadStacks(NetTraceCursor cursor)
        {
            var id = cursor.ReadInt32();
            var count = cursor.ReadInt32();
            for (var i = 0; i < count; i++, id++)
            {
                var size = cursor.ReadInt32();
                var bytes = cursor.ReadBytes(size);
                if (size % _pointerSize != 0)
                {
                    throw cursor.Corrupt($"stack {id} has {size} bytes, not a whole number of {_pointerSize}-byte addresses");
                }

                if (_regionBytes.Length - _regionLength < size)
                {
                    Array.Resize(ref _regionBytes, Math.Max(_regionBytes.Length * 2, _regionLength + size));
                }

                bytes.CopyTo(_regionBytes.AsSpan(_regionLength));
                _regionStacks[id] = new RegionStack(_regionLength, size, -1);
                _regionLength += size;
            }
        }

        private void ReadEvents(ReadOnlySpan<byte> block, long offset, bool metadata)
        {
            var events = new EventBlockReader(block, offset);
            while (events.MoveNext())
            {
                if (metadata)
                {
                    ReadMetadata(new NetTraceCursor(events.Payload, offset + events.PayloadOffset, "metadata record"));
                }
                else if ((uint)events.MetadataId < (uint)_kinds.Length && _kinds[events.MetadataId] is var kind and not EventKind.Other)
                {
                    switch (kind)
                    {
                        case EventKind.ThreadSample:
                            AddSample(events.Timestamp, events.ThreadId, events.StackId, events.Payload);
                            break;
                        case EventKind.JitMethodLoad:
                        case EventKind.MethodUnload:
                        case EventKind.RundownMethod:
                            AddMethod(new NetTraceCursor(events.Payload, offset + events.PayloadOffset, "event payload"), kind);
                            break;
                        default:
                            break;
                    }
                }
            }

            if (events.Corrupt)
            {
                throw events.Error(metadata ? "MetadataBlock" : "EventBlock");
            }
        }

        private void ReadMetadata(NetTraceCursor cursor)
        {
            if (MetadataFieldCounts.Problem(cursor.Rest) is { } lie)
            {
                throw cursor.Corrupt($"it {lie}");
            }

            if (!MetadataRecord.TryRead(cursor.Rest, out var record))
            {
                throw cursor.Corrupt("a name has no terminator");
            }

            var kind = (record.Provider, record.EventId) switch
            {
                (SampleProfilerProvider, ThreadSampleEventId) => EventKind.ThreadSample,
                (RuntimeProvider, MethodLoadVerboseEventId) => EventKind.JitMethodLoad,
                (RuntimeProvider, MethodUnloadVerboseEventId) => EventKind.MethodUnload,
                (RundownProvider, MethodDCStartVerboseEventId or MethodDCEndVerboseEventId) => EventKind.RundownMethod,
                _ => EventKind.Other,
            };
            if (kind != EventKind.Other)
            {
                var metadataId = record.MetadataId;
                if (metadataId < 0 || metadataId > 1 << 24)
                {
                    throw cursor.Corrupt($"metadata id {metadataId}");
                }

                if (metadataId >= _kinds.Length)
                {
                    Array.Resize(ref _kinds, Math.Max(metadataId + 1, _kinds.Length * 2));
                }

                _kinds[metadataId] = kind;
            }
        }

        private void AddSample(long timestamp, long threadId, int stackId, ReadOnlySpan<byte> payload)
        {
            var type = payload.Length >= 4 ? BinaryPrimitives.ReadInt32LittleEndian(payload) : 0;
            _samples.Add(new RawSample(timestamp, _samples.Count, (int)threadId, AddressStackOf(stackId), type == ClrThreadSampleManaged));
        }

        private int AddressStackOf(int regionStackId)
        {
            ref var stack = ref CollectionsMarshal.GetValueRefOrNullRef(_regionStacks, regionStackId);
            if (System.Runtime.CompilerServices.Unsafe.IsNullRef(ref stack))
            {
                // Id 0 means "no stack"; an id with no StackBlock in this region gets none either, as in TraceEvent.
                return _addressStacks.Intern([]);
            }

            if (stack.GlobalId < 0)
            {
                var bytes = _regionBytes.AsSpan(stack.Offset, stack.Length);
                stack.GlobalId = _addressStacks.Intern(Addresses(bytes));
            }

            return stack.GlobalId;
        }

        private ReadOnlySpan<ulong> Addresses(ReadOnlySpan<byte> bytes)
        {
            var count = bytes.Length / _pointerSize;
            if (_scratch.Length < count)
            {
                _scratch = new ulong[Math.Max(count, _scratch.Length * 2)];
            }

            for (var i = 0; i < count; i++)
            {
                _scratch[i] = _pointerSize == 8
                    ? BinaryPrimitives.ReadUInt64LittleEndian(bytes[(i * 8)..])
                    : BinaryPrimitives.ReadUInt32LittleEndian(bytes[(i * 4)..]);
            }

            return _scratch.AsSpan(0, count);
        }

        // MethodLoadVerbose, MethodUnloadVerbose and the rundown's MethodDC*Verbose share one layout:
        // MethodID, ModuleID, MethodStartAddress (8 bytes each), MethodSize, MethodToken, MethodFlags
        // (4 each), then namespace, name and signature as null-terminated UTF-16.
        private void AddMethod(NetTraceCursor cursor, EventKind kind)
        {
            cursor.Skip(16);
            var start = (ulong)cursor.ReadInt64();
            var size = (uint)cursor.ReadInt32();
            cursor.Skip(4);
            var flags = (uint)cursor.ReadInt32();
            if (kind == EventKind.JitMethodLoad && (flags & MethodFlagJitted) == 0)
            {
                return; // TraceLog names only jitted code from session loads; the rest comes from the rundown.
            }

            if (kind == EventKind.RundownMethod && !CoversSampledAddress(start, size))
            {
                return; // The rundown lists every method with code; keep only those that were sampled.
            }

            var name = MethodRangeTable.Name(cursor.ReadUtf16Z(), cursor.ReadUtf16Z(), cursor.ReadUtf16Z());
            if (kind == EventKind.JitMethodLoad)
            {
                _methods.AddSessionLoad(start, size, name);
            }
            else
            {
                _methods.AddRundown(start, size, name);
            }
        }

        private bool CoversSampledAddress(ulong start, uint size)
        {
            if (_sortedAddressVersion != _addressStacks.AddressVersion)
            {
                _sortedAddresses = [.. _addressStacks.Addresses];
                Array.Sort(_sortedAddresses);
                _sortedAddressVersion = _addressStacks.AddressVersion;
            }

            var index = Array.BinarySearch(_sortedAddresses, start);
            if (index < 0)
            {
                index = ~index;
            }

            return index < _sortedAddresses.Length && _sortedAddresses[index] - start < size;
        }

        private StackSampleSet Resolve()
        {
            var names = new Dictionary<ulong, string>(_addressStacks.Addresses.Count);
            var interner = new StackInterner();
            var unresolved = 0;
            foreach (var address in _addressStacks.Addresses)
            {
                if (!_methods.TryResolve(address, out var name))
                {
                    name = FrameNames.Unresolved(address);
                    unresolved++;
                }

                names[address] = interner.Name(name);
            }

            var nameStackOf = new int[_addressStacks.Count];
            for (var id = 0; id < nameStackOf.Length; id++)
            {
                var frames = _addressStacks[id];
                var named = new string[frames.Length];
                for (var i = 0; i < frames.Length; i++)
                {
                    named[i] = names[frames[i]];
                }

                nameStackOf[id] = interner.Intern(named);
            }

            // Events are only ordered within a sequence-point region; a stable sort by time orders the whole set.
            var raw = CollectionsMarshal.AsSpan(_samples);
            raw.Sort(static (a, b) => a.Timestamp != b.Timestamp ? a.Timestamp.CompareTo(b.Timestamp) : a.Order.CompareTo(b.Order));
            var samples = new StackSample[raw.Length];
            for (var i = 0; i < raw.Length; i++)
            {
                samples[i] = new StackSample(RelativeMSec(raw[i].Timestamp), raw[i].ThreadId, nameStackOf[raw[i].AddressStackId], raw[i].Managed);
            }

            return new StackSampleSet(samples, interner.Stacks, unresolved);
        }

        // TraceEvent's own conversion (QPCTimeToRelMSec), so both routes give bit-equal times.
        private double RelativeMSec(long timestamp) => Math.Max(0, timestamp - _syncTimeQpc) * 1000.0 / _qpcFrequency;
    }

    private record struct RegionStack(int Offset, int Length, int GlobalId);

    private readonly record struct RawSample(long Timestamp, int Order, int ThreadId, int AddressStackId, bool Managed);
}
