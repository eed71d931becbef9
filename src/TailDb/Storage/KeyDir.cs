using System.Collections.Concurrent;

namespace TailDb.Storage;

/// <summary>
/// The in-memory index: every live key → the location of its latest record. Mutated only under
/// the writer's lock (and by recovery before the store is shared); read lock-free.
/// </summary>
internal sealed class KeyDir
{
    private readonly ConcurrentDictionary<byte[], RecordLocation> _map;
    private readonly ConcurrentDictionary<byte[], RecordLocation>.AlternateLookup<ReadOnlySpan<byte>> _lookup;

    public KeyDir(int expectedKeys)
    {
        _map = new ConcurrentDictionary<byte[], RecordLocation>(
            Environment.ProcessorCount * 4, Math.Max(31, expectedKeys), ByteKeyComparer.Instance);
        _lookup = _map.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    /// <summary>Number of live keys. Takes every lock of the dictionary: never on a hot path.</summary>
    public int CountSlow => _map.Count;

    public bool TryGet(ReadOnlySpan<byte> key, out byte[] storedKey, out RecordLocation location) =>
        _lookup.TryGetValue(key, out storedKey!, out location);

    public bool TryGet(ReadOnlySpan<byte> key, out RecordLocation location) => _lookup.TryGetValue(key, out location);

    /// <summary>
    /// Points <paramref name="key"/> at <paramref name="location"/>; returns the key array the
    /// index holds (reused when the key exists) and the location it replaced (default if none).
    /// </summary>
    public byte[] Set(ReadOnlySpan<byte> key, RecordLocation location, out RecordLocation previous)
    {
        if (_lookup.TryGetValue(key, out byte[]? stored, out previous))
        {
            _map[stored] = location;
            return stored;
        }

        byte[] copy = key.ToArray();
        _map[copy] = location;
        return copy;
    }

    /// <summary>
    /// Recovery's <see cref="Set"/>: a key seen for the first time (nearly every key of a large
    /// store's open) costs one hash, one probe and one key array, not a lookup and then an insert.
    /// </summary>
    public void Load(ReadOnlySpan<byte> key, RecordLocation location, out RecordLocation previous)
    {
        if (_lookup.TryAdd(key, location))
        {
            previous = default;
            return;
        }

        Set(key, location, out previous);
    }

    public bool Remove(ReadOnlySpan<byte> key, out RecordLocation previous) => _lookup.TryRemove(key, out _, out previous);

    /// <summary>Moves a key only if it still points where compaction found it.</summary>
    public bool TryMove(ReadOnlySpan<byte> key, RecordLocation from, RecordLocation to) =>
        _lookup.TryGetValue(key, out byte[]? stored, out _) && _map.TryUpdate(stored, to, from);

    /// <summary>Snapshot enumeration (lock-free, weakly consistent); for compaction and tests.</summary>
    public IEnumerable<KeyValuePair<byte[], RecordLocation>> Entries => _map;
}
