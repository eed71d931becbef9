using System.Buffers;

namespace TailDb;

/// <summary>
/// Where a read puts the value. The read path is generic over a struct sink, so the zero-copy
/// TryGet and the allocating Get share one body and the JIT specialises each (no interface call).
/// </summary>
internal interface IValueSink
{
    void Write(ReadOnlySpan<byte> value);

    /// <summary>A cache hit's value, copied with <see cref="Caching.ValueCache.TryCopy"/>; false (nothing written) when a write kept overwriting it.</summary>
    bool TryWriteCached(byte[] slot);
}

internal readonly struct BufferWriterSink(IBufferWriter<byte> destination) : IValueSink
{
    public void Write(ReadOnlySpan<byte> value)
    {
        Span<byte> span = destination.GetSpan(value.Length);
        value.CopyTo(span);
        destination.Advance(value.Length);
    }

    public bool TryWriteCached(byte[] slot)
    {
        int length = Caching.ValueCache.ValueLength(slot);
        if (!Caching.ValueCache.TryCopy(slot, destination.GetSpan(length)[..length]))
        {
            return false;
        }

        destination.Advance(length);
        return true;
    }
}

internal struct ArraySink : IValueSink
{
    public byte[]? Value { get; private set; }

    public void Write(ReadOnlySpan<byte> value) => Value = value.ToArray();

    public bool TryWriteCached(byte[] slot)
    {
        byte[] value = new byte[Caching.ValueCache.ValueLength(slot)];
        if (!Caching.ValueCache.TryCopy(slot, value))
        {
            return false;
        }

        Value = value;
        return true;
    }
}
