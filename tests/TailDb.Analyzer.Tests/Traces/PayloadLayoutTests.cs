using System.Text;
using TailDb.Analyzer.Traces;
using T = TailDb.Analyzer.Traces.PayloadFieldType;

namespace TailDb.Analyzer.Tests.Traces;

/// <summary>
/// Payload bytes laid out as EventSource writes them (WriteEventCore: each field at its declared
/// size; a typed WriteEvent overload: numbers widened to its slots), located by the metadata alone.
/// The arrival is a Stopwatch-sized number that no misaligned read reproduces.
/// </summary>
public sealed class PayloadLayoutTests
{
    private const long Arrival = 0x0004_5F2A_9C31_7B15;

    [Fact]
    public void TheArrivalFirstAsTheLoadTestWritesIt()
    {
        var (layout, payload) = Build(("arrivalTimestamp", T.Int64, Arrival), ("kind", T.Int32, 2));
        Assert.Equal(Arrival, Read(layout, payload, "arrivalTimestamp", PayloadFit.Declared));
        Assert.Equal(2, Read(layout, payload, "kind", PayloadFit.Declared));
    }

    [Fact]
    public void AnIntBeforeTheArrivalAtItsDeclaredSize()
    {
        var (layout, payload) = Build(("requestId", T.Int32, 7), ("arrivalTimestamp", T.Int64, Arrival));
        Assert.Equal(12, payload.Length);
        Assert.Equal(Arrival, Read(layout, payload, "arrivalTimestamp", PayloadFit.Declared));
        Assert.Equal(7, Read(layout, payload, "requestId", PayloadFit.Declared));
    }

    [Fact]
    public void AnIntBeforeTheArrivalWidenedByWriteEventIntLongLong()
    {
        // RequestStart(int requestId, long arrivalTimestamp) => WriteEvent(1, requestId, arrivalTimestamp): 16 bytes, not 12.
        var layout = new PayloadLayout([new("requestId", T.Int32), new("arrivalTimestamp", T.Int64)]);
        var payload = Bytes(w => { w.Write(-7L); w.Write(Arrival); });
        Assert.Equal(Arrival, Read(layout, payload, "arrivalTimestamp", PayloadFit.Widened));
        Assert.Equal(-7, Read(layout, payload, "requestId", PayloadFit.Widened));
    }

    [Fact]
    public void SmallNumbersWidenedToIntsByWriteEventIntIntInt()
    {
        var layout = new PayloadLayout([new("a", T.Byte), new("b", T.Int16), new("c", T.UInt16)]);
        var payload = Bytes(w => { w.Write(200); w.Write(-3); w.Write(65_000); });
        Assert.Equal(200, Read(layout, payload, "a", PayloadFit.Widened));
        Assert.Equal(-3, Read(layout, payload, "b", PayloadFit.Widened));
        Assert.Equal(65_000, Read(layout, payload, "c", PayloadFit.Widened));
    }

    [Fact]
    public void AStringBeforeTheArrivalIsSteppedOverPerEvent()
    {
        foreach (var path in new[] { "", "/a", "/orders/12345/items?expand=true" })
        {
            var (layout, payload) = Build(("path", T.String, path), ("arrivalTimestamp", T.Int64, Arrival));
            Assert.Equal(Arrival, Read(layout, payload, "arrivalTimestamp", PayloadFit.Declared));
            Assert.Equal(path, ReadText(layout, payload, "path"));
        }
    }

    [Fact]
    public void AStringAndAnIntWidenedByWriteEventStringLong()
    {
        var layout = new PayloadLayout([new("path", T.String), new("status", T.Int32)]);
        var payload = Bytes(w => { Utf16Z(w, "/item/9"); w.Write(404L); });
        Assert.Equal(404, Read(layout, payload, "status", PayloadFit.Widened));
        Assert.Equal("/item/9", ReadText(layout, payload, "path"));
    }

    [Fact]
    public void FieldsOfEveryFixedSizeThenStringsThenTheArrival()
    {
        var (layout, payload) = Build(
            ("tenant", T.Guid, Guid.Parse("6f1c2a0e-9a4b-4f55-8d0e-1c2b3a4d5e6f")), ("priority", T.Int16, (short)-2), ("shard", T.Byte, (byte)250),
            ("retry", T.Bool, true), ("weight", T.Double, 0.25), ("letter", T.Char, 'q'), ("flags", T.UInt32, 4_000_000_000u),
            ("method", T.String, "GET"), ("route", T.String, "/orders/{id}"), ("size", T.SByte, (sbyte)-9), ("when", T.DateTime, DateTime.UnixEpoch),
            ("arrivalTimestamp", T.Int64, Arrival), ("user", T.UInt64, 42UL));
        Assert.Equal(Arrival, Read(layout, payload, "arrivalTimestamp", PayloadFit.Declared));
        Assert.Equal(-2, Read(layout, payload, "priority", PayloadFit.Declared));
        Assert.Equal(250, Read(layout, payload, "shard", PayloadFit.Declared));
        Assert.Equal(1, Read(layout, payload, "retry", PayloadFit.Declared));
        Assert.Equal('q', Read(layout, payload, "letter", PayloadFit.Declared));
        Assert.Equal(4_000_000_000L, Read(layout, payload, "flags", PayloadFit.Declared));
        Assert.Equal(-9, Read(layout, payload, "size", PayloadFit.Declared));
        Assert.Equal(42, Read(layout, payload, "user", PayloadFit.Declared));
        Assert.Equal("/orders/{id}", ReadText(layout, payload, "route"));
        Assert.Contains("tenant=6f1c2a0e-9a4b-4f55-8d0e-1c2b3a4d5e6f", layout.Describe(payload), StringComparison.Ordinal);
        Assert.Contains("weight=0.25 ", layout.Describe(payload), StringComparison.Ordinal);
    }

    [Fact]
    public void ALengthNoOverloadWritesIsReadAtTheDeclaredOffsetsAndNotGuessed()
    {
        // 12 declared bytes plus 3 more: no typed overload writes 15 bytes for (long, int).
        var layout = new PayloadLayout([new("arrivalTimestamp", T.Int64), new("kind", T.Int32)]);
        var payload = Bytes(w => { w.Write(Arrival); w.Write(3); w.Write((short)99); w.Write((byte)1); });
        Assert.Equal(Arrival, Read(layout, payload, "arrivalTimestamp", PayloadFit.Declared));
        Assert.Equal(3, Read(layout, payload, "kind", PayloadFit.Declared));
    }

    [Fact]
    public void AShortPayloadKeepsOnlyTheFieldsInsideIt()
    {
        var layout = new PayloadLayout([new("requestId", T.Int32), new("arrivalTimestamp", T.Int64)]);
        var payload = Bytes(w => { w.Write(5); w.Write(1234); });
        var (offsets, widths, fit) = Locate(layout, payload);
        Assert.Equal(PayloadFit.Short, fit);
        Assert.True(layout.TryReadInteger(payload, 0, offsets[0], widths[0], out var id));
        Assert.Equal(5, id);
        Assert.False(layout.TryReadInteger(payload, 1, offsets[1], widths[1], out _));
    }

    [Fact]
    public void AStringWithoutItsTerminatorLocatesNothingAfterIt()
    {
        var layout = new PayloadLayout([new("path", T.String), new("arrivalTimestamp", T.Int64)]);
        var payload = Encoding.Unicode.GetBytes("/never-ends");
        var (offsets, _, fit) = Locate(layout, payload);
        Assert.Equal(PayloadFit.Short, fit);
        Assert.Equal(-1, offsets[1]);
    }

    [Fact]
    public void AFieldOfNoKnownSizeHidesTheFieldsAfterIt()
    {
        var layout = new PayloadLayout([new("id", T.Int32), new("tags", T.Unsupported), new("arrivalTimestamp", T.Int64)]);
        var payload = Bytes(w => { w.Write(1); w.Write((short)2); w.Write((byte)1); w.Write((byte)2); w.Write(Arrival); });
        var (offsets, _, fit) = Locate(layout, payload);
        Assert.Equal(PayloadFit.Declared, fit);
        Assert.Equal(0, offsets[0]);
        Assert.Equal(-1, offsets[2]);
    }

    [Fact]
    public void TheSignatureSpellsTheDeclaredTypes()
    {
        var layout = new PayloadLayout([new("requestId", T.Int32), new("arrivalTimestamp", T.Int64), new("path", T.String)]);
        Assert.Equal("(int requestId, long arrivalTimestamp, string path)", layout.Signature());
    }

    private static long Read(PayloadLayout layout, byte[] payload, string name, PayloadFit expectedFit)
    {
        var (offsets, widths, fit) = Locate(layout, payload);
        Assert.Equal(expectedFit, fit);
        var field = layout.IndexOf(name);
        Assert.True(layout.TryReadInteger(payload, field, offsets[field], widths[field], out var value), $"{name} not located");
        return value;
    }

    private static string ReadText(PayloadLayout layout, byte[] payload, string name)
    {
        var (offsets, widths, _) = Locate(layout, payload);
        var field = layout.IndexOf(name);
        Assert.True(layout.TryReadString(payload, field, offsets[field], widths[field], out var text), $"{name} not located");
        return text.ToString();
    }

    private static (int[] Offsets, int[] Widths, PayloadFit Fit) Locate(PayloadLayout layout, byte[] payload)
    {
        var offsets = new int[layout.Fields.Count];
        var widths = new int[layout.Fields.Count];
        var fit = layout.Locate(payload, offsets, widths);
        return (offsets, widths, fit);
    }

    /// <summary>The layout and the bytes WriteEventCore writes for these fields (each at its declared size).</summary>
    private static (PayloadLayout, byte[]) Build(params (string Name, PayloadFieldType Type, object Value)[] fields)
    {
        var layout = new PayloadLayout([.. fields.Select(f => new PayloadField(f.Name, f.Type))]);
        var payload = Bytes(w =>
        {
            foreach (var (_, type, value) in fields)
            {
                switch (value)
                {
                    case string s: Utf16Z(w, s); break;
                    case bool b: w.Write(b ? 1 : 0); break;
                    case Guid g: w.Write(g.ToByteArray()); break;
                    case DateTime d: w.Write(d.ToFileTimeUtc()); break;
                    case char c: w.Write((ushort)c); break;
                    case sbyte v: w.Write(v); break;
                    case byte v: w.Write(v); break;
                    case short v: w.Write(v); break;
                    case int v: w.Write(v); break;
                    case uint v: w.Write(v); break;
                    case long v: w.Write(v); break;
                    case ulong v: w.Write(v); break;
                    case double v: w.Write(v); break;
                    default: throw new ArgumentException($"no writer for {type}");
                }
            }
        });
        return (layout, payload);
    }

    private static void Utf16Z(BinaryWriter w, string s)
    {
        w.Write(Encoding.Unicode.GetBytes(s));
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
