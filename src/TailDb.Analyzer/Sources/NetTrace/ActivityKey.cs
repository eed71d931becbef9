namespace TailDb.Analyzer.Sources.NetTrace;

/// <summary>
/// A request's pairing key: its activity id (two halves), or, for a source that sets none, the
/// thread (<see cref="Low"/> and <see cref="High"/> zero). Hashed by a multiply and xor: it is
/// looked up for every request of the session.
/// </summary>
internal readonly record struct ActivityKey(long Low, long High, long Thread)
{
    /// <summary>An activity id keys alone (a request may stop on another thread); an empty one falls back to the thread.</summary>
    public static ActivityKey Of(long low, long high, long thread) => low == 0 && high == 0 ? new(0, 0, thread) : new(low, high, 0);

    public bool HasActivity => Low != 0 || High != 0;

    public bool Equals(ActivityKey other) => Low == other.Low && High == other.High && Thread == other.Thread;

    public override int GetHashCode()
    {
        var mixed = ((Low ^ Thread) * unchecked((long)0x9E3779B97F4A7C15)) ^ High;
        return (int)(mixed ^ (mixed >> 32));
    }
}
