using System.Buffers;

namespace TailDb;

/// <summary>
/// Where a read puts the value. The read path is generic over a struct sink, so the zero-copy
/// TryGet and the allocating Get share one body and the JIT specialises each (no interface call).
/// </summary>
internal interface IValueSink
{
    void Write(ReadOnlySpan<byte> value);
}

internal readonly struct BufferWriterSink(IBufferWriter<byte> destination) : IValueSink
{
    public void Write(ReadOnlySpan<byte> value)
    {
        Span<byte> span = destination.GetSpan(value.Length);
        value.CopyTo(span);
        destination.Advance(value.Length);
    }
}

internal struct ArraySink : IValueSink
{
    public byte[]? Value { get; private set; }

    public void Write(ReadOnlySpan<byte> value) => Value = value.ToArray();
}
