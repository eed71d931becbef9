namespace TailDb.LoadTest.Injections;

/// <summary>One measured request on the Stopwatch clock: when it was due, when it was sent, when it finished, and what an injection did inside it.</summary>
public readonly record struct RequestTimes(long Arrival, long Start, long Done, RequestEffect Effect = RequestEffect.None);

/// <summary>
/// Every measured request's times, one preallocated array per load thread, so the truth file can
/// say which requests an injection slowed. Kept only when injecting (32 bytes a request); a thread
/// that sends more than it was sized for stops logging and the truth file says how many it lost.
/// </summary>
public sealed class RequestLog
{
    private readonly RequestTimes[][] _times;
    private readonly int[] _counts;
    private readonly long[] _dropped;

    public RequestLog(int threads, int capacityPerThread)
    {
        _times = new RequestTimes[threads][];
        for (int t = 0; t < threads; t++)
        {
            _times[t] = new RequestTimes[capacityPerThread];
        }

        _counts = new int[threads];
        _dropped = new long[threads];
    }

    public int Threads => _times.Length;

    public long Dropped => _dropped.Sum();

    /// <summary>Called by thread <paramref name="thread"/> only: no synchronization, no allocation.</summary>
    public void Add(int thread, long arrival, long start, long done, RequestEffect effect)
    {
        int count = _counts[thread];
        if (count == _times[thread].Length)
        {
            _dropped[thread]++;
            return;
        }

        _times[thread][count] = new RequestTimes(arrival, start, done, effect);
        _counts[thread] = count + 1;
    }

    /// <summary>Thread <paramref name="thread"/>'s requests in the order it sent them (read after the phase).</summary>
    public ReadOnlySpan<RequestTimes> Of(int thread) => _times[thread].AsSpan(0, _counts[thread]);
}
