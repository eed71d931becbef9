using System.Buffers;
using System.Runtime.InteropServices;

namespace TailDb.Benchmarks.Fixtures;

/// <summary>
/// A reused destination whose first byte sits on a 64-byte line in every process. An
/// <see cref="ArrayBufferWriter{T}"/>'s array lands wherever the heap puts it, and BenchmarkDotNet
/// runs each row in a process of its own: a 128-byte copy into a buffer that starts mid-line
/// writes three lines instead of two, in one row's process and not the next one's. Pinned, so a
/// GC never moves it off the line.
/// </summary>
public sealed class AlignedBufferWriter : IBufferWriter<byte>
{
    private const int Line = 64;
    private readonly byte[] _array;
    private readonly int _start;
    private readonly int _capacity;
    private int _written;

    public AlignedBufferWriter(int capacity)
    {
        _array = GC.AllocateArray<byte>(capacity + Line, pinned: true);
        long address = Marshal.UnsafeAddrOfPinnedArrayElement(_array, 0);
        _start = (int)((Line - (address & (Line - 1))) & (Line - 1));
        _capacity = capacity;
    }

    public int WrittenCount => _written;

    public void ResetWrittenCount() => _written = 0;

    public void Advance(int count)
    {
        if ((uint)count > (uint)(_capacity - _written))
        {
            throw new ArgumentOutOfRangeException(nameof(count), count, $"only {_capacity - _written} bytes are left");
        }

        _written += count;
    }

    public Span<byte> GetSpan(int sizeHint = 0) => _array.AsSpan(_start + _written, Room(sizeHint));

    public Memory<byte> GetMemory(int sizeHint = 0) => _array.AsMemory(_start + _written, Room(sizeHint));

    private int Room(int sizeHint)
    {
        int room = _capacity - _written;
        return sizeHint <= room ? room : throw new ArgumentOutOfRangeException(nameof(sizeHint), sizeHint, $"only {room} bytes are left");
    }

    /// <summary>A copy of <paramref name="source"/> on the pinned object heap: allocated in call order and never moved, so a setup that makes its copies in one order lays them out alike in every process.</summary>
    public static byte[] Pinned(byte[] source)
    {
        byte[] copy = GC.AllocateUninitializedArray<byte>(source.Length, pinned: true);
        source.CopyTo(copy, 0);
        return copy;
    }
}
