namespace TailDb.Analyzer.Causes;

/// <summary>The thread pool's starvation signals: it had no thread free and was adding one.</summary>
internal sealed class ThreadPoolStarvationCause(double[] sortedTimes) : ProcessEventsCause("thread-pool starvation signals", sortedTimes)
{
    public override CauseKind Kind => CauseKind.ThreadPoolStarvation;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var starvation = inputs.Set.ThreadPool.Starvation;
        if (starvation.Count == 0)
        {
            return [];
        }

        var times = new double[starvation.Count];
        for (var i = 0; i < times.Length; i++)
        {
            times[i] = starvation[i].TimeMSec;
        }

        Array.Sort(times);
        return [new ThreadPoolStarvationCause(times)];
    }
}
