using System.Runtime.InteropServices;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// Gives equal stacks (same frame names, leaf first) one id, so a set of samples costs one int
/// per sample plus one list per distinct stack, however long the trace.
/// </summary>
internal sealed class StackInterner
{
    private readonly Dictionary<string[], int> _ids = new(FramesComparer.Instance);
    private readonly List<IReadOnlyList<string>> _stacks = [];
    private readonly Dictionary<string, string> _names = new(StringComparer.Ordinal);

    public IReadOnlyList<IReadOnlyList<string>> Stacks => _stacks;

    /// <summary>Returns one shared instance per distinct frame name, so stacks share strings.</summary>
    public string Name(string frame)
    {
        ref var slot = ref CollectionsMarshal.GetValueRefOrAddDefault(_names, frame, out var exists);
        if (!exists)
        {
            slot = frame;
        }

        return slot!;
    }

    /// <param name="frames">Leaf first; the interner keeps the array, so the caller must not reuse it.</param>
    public int Intern(string[] frames)
    {
        ref var id = ref CollectionsMarshal.GetValueRefOrAddDefault(_ids, frames, out var exists);
        if (!exists)
        {
            id = _stacks.Count;
            _stacks.Add(frames);
        }

        return id;
    }

    private sealed class FramesComparer : IEqualityComparer<string[]>
    {
        public static readonly FramesComparer Instance = new();

        public bool Equals(string[]? x, string[]? y) =>
            ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

        public int GetHashCode(string[] frames)
        {
            var hash = new HashCode();
            foreach (var frame in frames)
            {
                hash.Add(frame, StringComparer.Ordinal);
            }

            return hash.ToHashCode();
        }
    }
}
