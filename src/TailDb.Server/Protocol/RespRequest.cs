namespace TailDb.Server.Protocol;

/// <summary>
/// One parsed command: its arguments as ranges of a contiguous frame (the pipe's own segment, or a
/// connection's scratch copy when the frame straddled segments). Reused for every command of a
/// connection, so parsing allocates nothing once the range array has grown to the widest command.
/// </summary>
public sealed class RespRequest
{
    private ArgumentRange[] _ranges = new ArgumentRange[8];

    public ReadOnlyMemory<byte> Frame { get; private set; }

    public int Count { get; private set; }

    public ReadOnlyMemory<byte> this[int index] => Frame.Slice(_ranges[index].Start, _ranges[index].Length);

    public ReadOnlySpan<byte> Span(int index) => Frame.Span.Slice(_ranges[index].Start, _ranges[index].Length);

    /// <summary>Bytes of all arguments (the event payload's size of a command).</summary>
    public int ArgumentBytes
    {
        get
        {
            int sum = 0;
            for (int i = 0; i < Count; i++)
            {
                sum += _ranges[i].Length;
            }

            return sum;
        }
    }

    internal void Reset(ReadOnlyMemory<byte> frame)
    {
        Frame = frame;
        Count = 0;
    }

    internal void Clear() => Count = 0;

    internal void Add(int start, int length)
    {
        if (Count == _ranges.Length)
        {
            Array.Resize(ref _ranges, _ranges.Length * 2);
        }

        _ranges[Count++] = new ArgumentRange(start, length);
    }

    private readonly record struct ArgumentRange(int Start, int Length);
}
