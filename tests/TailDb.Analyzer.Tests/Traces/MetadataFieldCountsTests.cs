using System.Buffers.Binary;
using System.Text;
using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Sources.NetTrace;
using TailDb.Analyzer.Stacks;
using TailDb.Analyzer.Tests.Recording;
using TailDb.Analyzer.Traces;
using TailDb.Analyzer.Watch;

namespace TailDb.Analyzer.Tests.Traces;

[Collection(WorkloadTracesGroup.Name)]
public sealed class MetadataFieldCountsTests(WorkloadTraces traces)
{
    private const int Int32TypeCode = 9;
    private const int ObjectTypeCode = 1;

    [Fact]
    public void ARecordWhoseFieldsAllFitHasNoProblem()
    {
        var record = Record(fields => Fields(fields, ("Key", Int32TypeCode), ("Bytes", Int32TypeCode)));
        Assert.Null(MetadataFieldCounts.Problem(record));
    }

    [Fact]
    public void ARecordWithNoFieldsAtAllHasNoProblem()
    {
        Assert.Null(MetadataFieldCounts.Problem(Record(fields => fields.Write(0))));
    }

    [Theory]
    [InlineData(int.MaxValue)]
    [InlineData(0x7FFF_FF00)]
    [InlineData(-1)]
    [InlineData(3)] // Three fields need at least 18 bytes; the record has one field's worth.
    public void ATopLevelFieldCountThatCannotFitIsNamed(int count)
    {
        var record = Record(fields =>
        {
            fields.Write(count);
            Field(fields, "Key", Int32TypeCode);
        });
        var problem = MetadataFieldCounts.Problem(record);
        Assert.NotNull(problem);
        Assert.Contains($"declares {count:N0} fields", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void ANestedStructsFieldCountIsCheckedToo()
    {
        var record = Record(fields =>
        {
            fields.Write(1);
            fields.Write(ObjectTypeCode);
            fields.Write(0x7FFF_FFF0); // The struct's own field count.
            Name(fields, "Inner");
            Name(fields, "Outer");
        });
        Assert.Contains("declares 2,147,483,632 fields", MetadataFieldCounts.Problem(record), StringComparison.Ordinal);
    }

    [Fact]
    public void AV2ParameterTagsFieldCountIsCheckedToo()
    {
        var record = Record(fields =>
        {
            fields.Write(0); // No V1 fields: the V2 tag describes them.
            fields.Write(4); // Tag payload bytes.
            fields.Write((byte)2); // ParameterPayloadV2.
            fields.Write(int.MaxValue);
        });
        Assert.Contains("declares 2,147,483,647 fields in 0 bytes", MetadataFieldCounts.Problem(record), StringComparison.Ordinal);
    }

    [Fact]
    public void AShapeTheWalkDoesNotFollowIsLeftToTraceEvent()
    {
        // A field name without a terminator: not a count that lies, so no verdict here.
        var record = Record(fields =>
        {
            fields.Write(1);
            fields.Write(Int32TypeCode);
            fields.Write(Encoding.Unicode.GetBytes("NoTerminator"));
        });
        Assert.Null(MetadataFieldCounts.Problem(record));
    }

    [Fact]
    public void EveryMetadataRecordOfTheRecordedTracesFits()
    {
        var records = 0;
        foreach (var path in new[] { traces.GroundTruth, traces.Custom, traces.NoActivityIds, traces.Snapshot })
        {
            foreach (var record in MetadataRecords(path))
            {
                Assert.Null(MetadataFieldCounts.Problem(record));
                records++;
            }
        }

        Assert.True(records > 50, $"only {records} metadata records read");
    }

    [Fact]
    public void AFieldCountNearInt32MaxEndsSlowestAndSummaryInOneLineWithoutAllocatingIt()
    {
        var path = WithFieldCount(traces.GroundTruth, 0x7FFF_FF00, "metadata-count-lies");
        GC.Collect();
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        var slowest = Assert.Throws<AnalyzerException>(() => SlowestAnalysis.Run(new SlowestSettings(path, RequestSelection.TailDb), new NetTraceStackSampleReader()));
        var summary = Assert.Throws<AnalyzerException>(() => SummaryAnalysis.Run(path, RequestSelection.TailDb));
        var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
        foreach (var error in new[] { slowest, summary })
        {
            Assert.Equal(ExitCode.BadTrace, error.ExitCode);
            Assert.DoesNotContain('\n', error.Message);
            Assert.Contains("declares 2,147,483,392 fields", error.Message, StringComparison.Ordinal);
        }

        // Both refuse before TraceEvent sees the record: nowhere near the 17 GB the count asks for.
        Assert.True(allocated < 1L << 30, $"{allocated:N0} bytes allocated");
        File.Delete(path);
    }

    /// <summary>A copy of the trace whose first metadata record with fields declares <paramref name="count"/> of them.</summary>
    private string WithFieldCount(string tracePath, int count, string name)
    {
        var bytes = File.ReadAllBytes(tracePath);
        var at = FirstFieldCountOffset(tracePath);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(checked((int)at)), count);
        var path = Path.Combine(traces.Directory, name + ".nettrace");
        File.WriteAllBytes(path, bytes);
        return path;
    }

    private static long FirstFieldCountOffset(string tracePath)
    {
        foreach (var (block, offset) in MetadataBlocks(tracePath))
        {
            var events = new EventBlockReader(block);
            while (events.MoveNext())
            {
                var record = events.Payload;
                var countAt = FieldCountAt(record);
                if (countAt + 4 <= record.Length && BinaryPrimitives.ReadInt32LittleEndian(record[countAt..]) > 0)
                {
                    return offset + OffsetWithin(block, record) + countAt;
                }
            }
        }

        throw new InvalidOperationException("no metadata record with fields");
    }

    /// <summary>Every MetadataBlock's payload and its file offset, read with the analyzer's own framing reader.</summary>
    private static List<(byte[] Block, long Offset)> MetadataBlocks(string tracePath)
    {
        var blocks = new List<(byte[], long)>();
        using var stream = new NetTraceObjectStream(tracePath);
        stream.ReadStreamHeader();
        while (stream.TryBeginObject(out var type, out _))
        {
            if (type == "Trace")
            {
                stream.ReadTraceObjectFields();
                continue;
            }

            var block = stream.ReadBlock(type, out var offset);
            if (type == "MetadataBlock")
            {
                blocks.Add((block.ToArray(), offset));
            }
        }

        return blocks;
    }

    /// <summary>Where a record's payload starts inside its block (both are views of one array).</summary>
    private static long OffsetWithin(ReadOnlySpan<byte> block, ReadOnlySpan<byte> record)
    {
        ref var b = ref System.Runtime.InteropServices.MemoryMarshal.GetReference(block);
        ref var r = ref System.Runtime.InteropServices.MemoryMarshal.GetReference(record);
        return System.Runtime.CompilerServices.Unsafe.ByteOffset(ref b, ref r);
    }

    /// <summary>The offset of the V1 field count: after id, provider, event id, name, keywords, version and level.</summary>
    private static int FieldCountAt(ReadOnlySpan<byte> record)
    {
        var at = 4;
        at = AfterUtf16Z(record, at) + 4;
        return AfterUtf16Z(record, at) + 8 + 4 + 4;
    }

    private static int AfterUtf16Z(ReadOnlySpan<byte> data, int at)
    {
        while (data[at] != 0 || data[at + 1] != 0)
        {
            at += 2;
        }

        return at + 2;
    }

    private static List<byte[]> MetadataRecords(string tracePath)
    {
        var records = new List<byte[]>();
        foreach (var (block, _) in MetadataBlocks(tracePath))
        {
            var events = new EventBlockReader(block);
            while (events.MoveNext())
            {
                records.Add(events.Payload.ToArray());
            }

            Assert.False(events.Corrupt);
        }

        return records;
    }

    private static byte[] Record(Action<BinaryWriter> writeFields)
    {
        using var bytes = new MemoryStream();
        using (var writer = new BinaryWriter(bytes))
        {
            writer.Write(7); // metadata id
            Name(writer, "TailDb");
            writer.Write(1); // event id
            Name(writer, "GetStart");
            writer.Write(0L); // keywords
            writer.Write(0); // version
            writer.Write(4); // level
            writeFields(writer);
        }

        return bytes.ToArray();
    }

    private static void Fields(BinaryWriter writer, params (string Name, int TypeCode)[] fields)
    {
        writer.Write(fields.Length);
        foreach (var (name, typeCode) in fields)
        {
            Field(writer, name, typeCode);
        }
    }

    private static void Field(BinaryWriter writer, string name, int typeCode)
    {
        writer.Write(typeCode);
        Name(writer, name);
    }

    private static void Name(BinaryWriter writer, string name)
    {
        writer.Write(Encoding.Unicode.GetBytes(name));
        writer.Write((short)0);
    }
}
