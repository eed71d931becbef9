namespace TailDb.Analyzer.Sources;

/// <summary>
/// What an activity's Start and Stop are paired by (<see cref="ActivityPairs{T}"/>): the activity
/// kind and its activity id (two halves), or, for a source that sets no id, the kind and the thread
/// (<see cref="Low"/> and <see cref="High"/> zero). Hashed by a multiply and xor: it is looked up
/// for every request of a session.
/// </summary>
internal readonly record struct ActivityKey(long Low, long High, long Thread, int Activity)
{
    /// <summary>An activity id keys alone (a request may stop on another thread); an empty one falls back to the thread.</summary>
    public static ActivityKey Of(long low, long high, long thread, int activity) =>
        low == 0 && high == 0 ? new(0, 0, thread, activity) : new(low, high, 0, activity);

    /// <summary>The same from TraceEvent's values.</summary>
    public static ActivityKey Of(Guid id, long thread, int activity)
    {
        if (id == Guid.Empty)
        {
            return new(0, 0, thread, activity);
        }

        Span<byte> bytes = stackalloc byte[16];
        id.TryWriteBytes(bytes);
        return new(BitConverter.ToInt64(bytes), BitConverter.ToInt64(bytes[8..]), 0, activity);
    }

    public bool HasActivity => Low != 0 || High != 0;

    public bool Equals(ActivityKey other) => Low == other.Low && High == other.High && Thread == other.Thread && Activity == other.Activity;

    public override int GetHashCode()
    {
        var mixed = ((Low ^ Thread ^ ((long)Activity << 48)) * unchecked((long)0x9E3779B97F4A7C15)) ^ High;
        return (int)(mixed ^ (mixed >> 32));
    }
}
