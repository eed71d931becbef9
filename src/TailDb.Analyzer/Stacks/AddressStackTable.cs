using System.Runtime.InteropServices;

namespace TailDb.Analyzer.Stacks;

/// <summary>
/// Interns raw stacks (instruction pointers, leaf first) across the whole trace: the file's own
/// stack ids only live until the next sequence point, so equal stacks get one global id here,
/// and every distinct address is kept once for the final name resolution. Looking up a stack
/// that is already known allocates nothing.
/// </summary>
internal sealed class AddressStackTable
{
    private readonly List<ulong> _frames = [];
    private readonly List<(int Offset, int Length)> _stacks = [];
    private readonly Dictionary<int, int> _firstByHash = [];
    private readonly List<int> _nextWithSameHash = [];
    private readonly HashSet<ulong> _addresses = [];

    public int Count => _stacks.Count;

    public IReadOnlySet<ulong> Addresses => _addresses;

    /// <summary>Bumped whenever a new address arrives, so a cached sorted copy knows it is stale.</summary>
    public int AddressVersion { get; private set; }

    public ReadOnlySpan<ulong> this[int id]
    {
        get
        {
            var (offset, length) = _stacks[id];
            return CollectionsMarshal.AsSpan(_frames).Slice(offset, length);
        }
    }

    public int Intern(ReadOnlySpan<ulong> frames)
    {
        var hash = Hash(frames);
        ref var first = ref CollectionsMarshal.GetValueRefOrAddDefault(_firstByHash, hash, out var exists);
        if (exists)
        {
            for (var id = first; id >= 0; id = _nextWithSameHash[id])
            {
                if (this[id].SequenceEqual(frames))
                {
                    return id;
                }
            }
        }

        var newId = _stacks.Count;
        _nextWithSameHash.Add(exists ? first : -1);
        first = newId;
        _stacks.Add((_frames.Count, frames.Length));
        foreach (var address in frames)
        {
            _frames.Add(address);
            if (_addresses.Add(address))
            {
                AddressVersion++;
            }
        }

        return newId;
    }

    private static int Hash(ReadOnlySpan<ulong> frames)
    {
        var hash = new HashCode();
        hash.AddBytes(MemoryMarshal.AsBytes(frames));
        return hash.ToHashCode();
    }
}
