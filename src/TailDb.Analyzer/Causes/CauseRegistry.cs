namespace TailDb.Analyzer.Causes;

/// <summary>
/// Every cause the analyzer knows, in the order the report lists equal rows. Each entry makes the
/// causes one trace has (none when the trace has no such events). A new cause: one class, one line here.
/// </summary>
internal static class CauseRegistry
{
    private static readonly Func<CauseInputs, IEnumerable<ICause>>[] s_all =
    [
        GcPauseCause.From,
        SuspensionCauses.From,
        StoreUpkeepCause.From,
        ContentionCause.From,
        JitCause.From,
        ThreadPoolStarvationCause.From,
        ExceptionsCause.From,
        NestedActivityCause.From,
        SampleCause.From,
        EarlierRequestsCause.From,
        CpuWaitCause.From,
        OffCpuCause.From,
        LateWakeCause.From,
        OffCpuInFaultCause.From,
        MajorFaultsCause.From,
    ];

    public static List<ICause> Build(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var causes = new List<ICause>();
        foreach (var make in s_all)
        {
            causes.AddRange(make(inputs));
        }

        return causes;
    }
}
