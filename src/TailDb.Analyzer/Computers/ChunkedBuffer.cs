namespace TailDb.Analyzer.Computers;

/// <summary>
/// Append-only storage in fixed chunks. A List&lt;T&gt; doubles and copies as it grows, which on a
/// trace with millions of requests briefly needs twice the memory (the 1 GB budget); chunks never
/// move. No collection in the box does this, hence this small type.
/// </summary>
internal sealed class ChunkedBuffer<T>
    where T : struct
{
    private const int ChunkShift = 14;
    private const int ChunkSize = 1 << ChunkShift;
    private readonly List<T[]> _chunks = [];

    public int Count { get; private set; }

    public ref T this[int index] => ref _chunks[index >> ChunkShift][index & (ChunkSize - 1)];

    public int Add(in T item)
    {
        var index = Count;
        if ((index & (ChunkSize - 1)) == 0)
        {
            _chunks.Add(new T[ChunkSize]);
        }

        _chunks[index >> ChunkShift][index & (ChunkSize - 1)] = item;
        Count++;
        return index;
    }
}
