namespace TailDb.Analyzer.Causes;

/// <summary>A thread waiting for a contended lock (ContentionStart/Stop).</summary>
internal sealed class ContentionCause(Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
    : ThreadWindowsCause("lock contention (ContentionStart/Stop)", windowsByThread)
{
    public override CauseKind Kind => CauseKind.Contention;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var windows = ByThread(inputs.Set.Contention.Windows);
        return windows.Count == 0 ? [] : [new ContentionCause(windows)];
    }
}
