using System.Runtime.InteropServices;

namespace TailDb.Analyzer.Sources.Etw;

/// <summary>One buffer's place in the file, from its WMI_BUFFER_HEADER (docs/etl.md "Buffers").</summary>
internal readonly record struct EtlBufferInfo(long Offset, int SizeOnDisk, int UsedBytes, ushort Flags, int Processor)
{
    public const int HeaderSize = 0x48;
    public const ushort FlagProcessorIndex = 0x20;
    public const ushort FlagCompressed = 0x40;

    public bool Compressed => (Flags & FlagCompressed) != 0;
}

/// <summary>
/// The buffers one processor wrote, in file order, and a cursor over their events. Events within a
/// buffer are in time order; the reader merges the streams of all processors by timestamp, as
/// ProcessTrace does. Each stream owns one unmanaged buffer: TraceEvent's parsers read payloads
/// through raw pointers, so the bytes must not move.
/// </summary>
internal sealed unsafe class EtlBufferStream : IDisposable
{
    private readonly List<EtlBufferInfo> _buffers = [];
    private readonly EtlFile _file;
    private byte* _bytes;
    private int _capacity;
    private int _next;
    private byte[]? _compressed;

    public EtlBufferStream(EtlFile file, int processor)
    {
        _file = file;
        Processor = processor;
    }

    public int Processor { get; }

    /// <summary>The current buffer's bytes (header included, decompressed), valid until the next <see cref="TryLoadNext"/>.</summary>
    public byte* Bytes => _bytes;

    public int Length { get; private set; }

    public EtlBufferInfo Current { get; private set; }

    /// <summary>Offset of the next event within <see cref="Bytes"/>.</summary>
    public int Position { get; set; }

    public void Add(EtlBufferInfo buffer) => _buffers.Add(buffer);

    public EtlBytes View => new(new ReadOnlySpan<byte>(_bytes, Length), Current.Offset, Current.Compressed);

    public bool TryLoadNext(EtwReadCounts counts)
    {
        if (_next >= _buffers.Count)
        {
            return false;
        }

        var info = _buffers[_next++];
        Current = info;
        Ensure(Math.Max(info.UsedBytes, info.SizeOnDisk));
        var target = new Span<byte>(_bytes, _capacity);
        counts.Buffers++;
        if (!info.Compressed)
        {
            ReadExactly(target[..info.UsedBytes], info.Offset);
            Length = info.UsedBytes;
        }
        else
        {
            counts.CompressedBuffers++;
            if (_compressed is null || _compressed.Length < info.SizeOnDisk)
            {
                _compressed = new byte[info.SizeOnDisk];
            }

            var packed = _compressed.AsSpan(0, info.SizeOnDisk);
            ReadExactly(packed, info.Offset);
            packed[..EtlBufferInfo.HeaderSize].CopyTo(target);
            var written = Lz77Decoder.Decode(packed[EtlBufferInfo.HeaderSize..], target[EtlBufferInfo.HeaderSize..info.UsedBytes]);
            if (written != info.UsedBytes - EtlBufferInfo.HeaderSize)
            {
                throw new EtlFormatException(info.Offset, $"a compressed buffer decodes to {written} bytes, its header says {info.UsedBytes - EtlBufferInfo.HeaderSize}");
            }

            Length = info.UsedBytes;
        }

        Position = EtlBufferInfo.HeaderSize;
        return true;
    }

    public void Dispose()
    {
        NativeMemory.Free(_bytes);
        _bytes = null;
    }

    private void Ensure(int size)
    {
        if (size <= _capacity)
        {
            return;
        }

        NativeMemory.Free(_bytes);
        _bytes = (byte*)NativeMemory.AllocZeroed((nuint)size);
        _capacity = size;
    }

    private void ReadExactly(Span<byte> target, long offset)
    {
        var read = 0;
        while (read < target.Length)
        {
            var n = RandomAccess.Read(_file.Handle, target[read..], offset + read);
            if (n == 0)
            {
                throw new EtlFormatException(offset + read, "the file ends inside a buffer");
            }

            read += n;
        }
    }
}
