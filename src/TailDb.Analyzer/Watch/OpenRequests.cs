using TailDb.Analyzer.Sources.NetTrace;

namespace TailDb.Analyzer.Watch;

/// <summary>
/// The watched activity's requests that started and have not stopped. EventPipe writes each
/// thread's events together, so a request's Stop nearly always follows its own Start with no other
/// watched Start between: the newest Start waits in a slot and its Stop takes it from there. Only a
/// request still open when the next one starts (on another thread, or across blocks) goes to the
/// dictionary.
/// </summary>
internal sealed class OpenRequests
{
    private readonly Dictionary<ActivityKey, (long Start, int Activity)> _spilled = [];
    private ActivityKey _newestKey;
    private long _newestStart;
    private int _newestActivity;
    private bool _hasNewest;

    /// <summary>Requests open (started, not stopped).</summary>
    public int Count => _spilled.Count + (_hasNewest ? 1 : 0);

    /// <summary>A Start. A key that is already open is restarted (a thread-keyed request whose Stop was lost).</summary>
    public void Start(ActivityKey key, long timestamp, int activity)
    {
        if (_hasNewest && !_newestKey.Equals(key))
        {
            _spilled[_newestKey] = (_newestStart, _newestActivity);
        }

        // Activity ids are new per request; a thread key repeats, and its older Start must not outlive this one.
        if (!key.HasActivity && _spilled.Count > 0)
        {
            _spilled.Remove(key);
        }

        (_newestKey, _newestStart, _newestActivity, _hasNewest) = (key, timestamp, activity, true);
    }

    /// <summary>A Stop: the matching Start's time and activity, or false when none is open (its Start came before the session).</summary>
    public bool TryStop(ActivityKey key, out long start, out int activity)
    {
        if (_hasNewest && _newestKey.Equals(key))
        {
            (start, activity, _hasNewest) = (_newestStart, _newestActivity, false);
            return true;
        }

        if (_spilled.Count > 0 && _spilled.Remove(key, out var open))
        {
            (start, activity) = open;
            return true;
        }

        (start, activity) = (0, 0);
        return false;
    }
}
