namespace TailDb.Analyzer.Sources;

/// <summary>
/// The one rule that pairs an activity's Start with its Stop, for `slowest` (Computers'
/// RequestComputer) and `watch` (Watch's LiveTracker): by <see cref="ActivityKey"/>, the activity
/// kind with its activity id, or with its thread when the source sets no id (TplEventSource keyword
/// 0x80 off). A key holds at most one open Start: a second Start of the same key means the first
/// one's Stop was lost (a thread-keyed source, or a session that dropped events), so the first is
/// dropped and counted. That keeps a long watch bounded whatever the source loses. Kinds nest
/// (Request, then Get, then FileRead on one thread) because the kind is part of the key.
/// </summary>
/// <remarks>
/// EventPipe writes each thread's events together, so a Stop nearly always follows its own Start
/// with no other Start between: the newest Start waits in a slot and its Stop takes it from there.
/// Only a Start still open when the next one begins goes to the dictionary.
/// </remarks>
/// <typeparam name="T">What the caller keeps for an open Start (its time, its record's index).</typeparam>
internal sealed class ActivityPairs<T> where T : struct
{
    private readonly Dictionary<ActivityKey, T> _spilled = [];
    private ActivityKey _newestKey;
    private T _newest;
    private bool _hasNewest;

    /// <summary>Starts open (started, not stopped).</summary>
    public int Count => _spilled.Count + (_hasNewest ? 1 : 0);

    /// <summary>Starts dropped because their key started again before they stopped.</summary>
    public long Dropped { get; private set; }

    /// <summary>A Start. True when it dropped an open Start of the same key (<paramref name="dropped"/>), whose Stop was lost.</summary>
    public bool Start(ActivityKey key, T value, out T dropped)
    {
        var replaced = false;
        dropped = default;
        if (_hasNewest)
        {
            if (_newestKey.Equals(key))
            {
                (dropped, replaced) = (_newest, true);
            }
            else
            {
                // The slot's key is never in the dictionary: filling the slot removes it from there.
                _spilled[_newestKey] = _newest;
            }
        }

        if (!replaced && _spilled.Count > 0 && _spilled.Remove(key, out var older))
        {
            (dropped, replaced) = (older, true);
        }

        if (replaced)
        {
            Dropped++;
        }

        (_newestKey, _newest, _hasNewest) = (key, value, true);
        return replaced;
    }

    /// <summary>A Stop: the matching Start's value, or false when none is open (its Start came before the session, or was dropped).</summary>
    public bool TryStop(ActivityKey key, out T value)
    {
        if (_hasNewest && _newestKey.Equals(key))
        {
            (value, _hasNewest) = (_newest, false);
            return true;
        }

        if (_spilled.Count > 0 && _spilled.Remove(key, out value))
        {
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>The Starts still open, for the caller to count as unpaired when the trace ends.</summary>
    public IEnumerable<T> Open()
    {
        if (_hasNewest)
        {
            yield return _newest;
        }

        foreach (var value in _spilled.Values)
        {
            yield return value;
        }
    }

    public void Clear()
    {
        _spilled.Clear();
        _hasNewest = false;
    }
}
