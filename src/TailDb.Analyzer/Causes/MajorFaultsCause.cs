namespace TailDb.Analyzer.Causes;

/// <summary>Major page faults (the kernel read a page from disk) on the request's thread, as perf counted them.</summary>
internal sealed class MajorFaultsCause(Dictionary<int, List<double>> timesByThread)
    : ThreadEventsCause("major page faults (a page read from disk)", timesByThread)
{
    public override CauseKind Kind => CauseKind.MajorFaults;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        if (inputs.Scheduler is not { } scheduler || scheduler.MajorFaults.Count == 0)
        {
            return [];
        }

        return [new MajorFaultsCause(scheduler.MajorFaults.ToDictionary(f => f.Key, f => f.Value.ToList()))];
    }
}
