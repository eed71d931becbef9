using System.Text;
using TailDb.Analyzer.Traces;
using T = TailDb.Analyzer.Traces.PayloadFieldType;

namespace TailDb.Analyzer.Tests.Traces;

/// <summary>Metadata records laid out as the runtime writes them (NetTraceFormat_v5), read back as declared field lists.</summary>
public sealed class EventMetadataTests
{
    [Fact]
    public void AV1RecordGivesEveryFieldItsDeclaredTypeAShortIncluded()
    {
        var record = Record("My-Orders", 1, 2, fields =>
        {
            fields.Write(5);
            Field(fields, TypeCode.Int16, "shard");
            Field(fields, (TypeCode)17, "tenant");
            Field(fields, TypeCode.String, "route");
            Field(fields, TypeCode.Boolean, "retry");
            Field(fields, TypeCode.Int64, "dueAt");
        });

        Assert.True(EventMetadata.TryParse(record, out var provider, out var id, out var version, out var parsed));
        Assert.Equal(("My-Orders", 1, 2), (provider, id, version));
        Assert.Equal([new("shard", T.Int16), new("tenant", T.Guid), new("route", T.String), new("retry", T.Bool), new("dueAt", T.Int64)], parsed);
    }

    [Fact]
    public void AV2ParameterTagReplacesTheEmptyV1ListAndAnArrayHasNoKnownSize()
    {
        var record = Record("My-Orders", 3, 0, fields => fields.Write(0), tags =>
        {
            var v2 = Bytes(list =>
            {
                list.Write(3);
                V2Field(list, "id", w => w.Write((int)TypeCode.Int32));
                V2Field(list, "items", w => { w.Write(19); w.Write((int)TypeCode.Int32); });
                V2Field(list, "arrivalTimestamp", w => w.Write((int)TypeCode.Int64));
            });
            tags.Write(1);
            tags.Write((byte)1); // opcode tag
            tags.Write((byte)1);
            tags.Write(v2.Length);
            tags.Write((byte)2);
            tags.Write(v2);
        });

        Assert.True(EventMetadata.TryParse(record, out _, out var id, out _, out var parsed));
        Assert.Equal(3, id);
        Assert.Equal([new("id", T.Int32), new("items", T.Unsupported), new("arrivalTimestamp", T.Int64)], parsed);
    }

    [Fact]
    public void ANestedObjectIsOneFieldOfNoKnownSize()
    {
        var record = Record("My-Orders", 4, 0, fields =>
        {
            fields.Write(2);
            fields.Write((int)TypeCode.Object);
            fields.Write(2);
            Field(fields, TypeCode.Int32, "x");
            Field(fields, TypeCode.Int32, "y");
            Name(fields, "point");
            Field(fields, TypeCode.Int64, "arrivalTimestamp");
        });

        Assert.True(EventMetadata.TryParse(record, out _, out _, out _, out var parsed));
        Assert.Equal([new("point", T.Unsupported), new("arrivalTimestamp", T.Int64)], parsed);
    }

    [Fact]
    public void ARecordCutInsideItsFieldsDoesNotParse()
    {
        var record = Record("My-Orders", 1, 0, fields =>
        {
            fields.Write(2);
            Field(fields, TypeCode.Int32, "id");
        });

        Assert.False(EventMetadata.TryParse(record, out _, out _, out _, out _));
    }

    private static byte[] Record(string provider, int eventId, int version, Action<BinaryWriter> fields, Action<BinaryWriter>? tags = null) => Bytes(w =>
    {
        w.Write(7); // metadata id
        Name(w, provider);
        w.Write(eventId);
        Name(w, "RequestStart");
        w.Write(0L); // keywords
        w.Write(version);
        w.Write(4); // level
        fields(w);
        tags?.Invoke(w);
    });

    private static void Field(BinaryWriter w, TypeCode type, string name)
    {
        w.Write((int)type);
        Name(w, name);
    }

    private static void V2Field(BinaryWriter w, string name, Action<BinaryWriter> type)
    {
        var body = Bytes(b =>
        {
            type(b);
            Name(b, name);
        });
        w.Write(body.Length + 4);
        w.Write(body);
    }

    private static void Name(BinaryWriter w, string name)
    {
        w.Write(Encoding.Unicode.GetBytes(name));
        w.Write((short)0);
    }

    private static byte[] Bytes(Action<BinaryWriter> write)
    {
        using var stream = new MemoryStream();
        using (var w = new BinaryWriter(stream))
        {
            write(w);
        }

        return stream.ToArray();
    }
}
