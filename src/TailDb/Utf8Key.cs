using System.Buffers;
using System.Text;

namespace TailDb;

/// <summary>
/// A string key as UTF-8 bytes for the string overloads: encoded into the caller's stack buffer
/// when it fits, otherwise into a pooled array returned on Dispose, so a string key costs no
/// allocation either way.
/// </summary>
internal ref struct Utf8Key : IDisposable
{
    /// <summary>The stack buffer the overloads pass in; keys up to 85 chars always fit.</summary>
    public const int StackBytes = 256;

    private byte[]? _rented;

    public Utf8Key(string key, Span<byte> stackBuffer)
    {
        ArgumentNullException.ThrowIfNull(key);
        var max = Encoding.UTF8.GetMaxByteCount(key.Length);
        var buffer = max <= stackBuffer.Length ? stackBuffer : (_rented = ArrayPool<byte>.Shared.Rent(max));
        Bytes = buffer[..Encoding.UTF8.GetBytes(key, buffer)];
    }

    public ReadOnlySpan<byte> Bytes { get; }

    public void Dispose()
    {
        if (_rented is not null)
        {
            ArrayPool<byte>.Shared.Return(_rented);
            _rented = null;
        }
    }
}
