namespace TailDb.Analyzer.Causes;

/// <summary>A thread compiling a method before it could run it.</summary>
internal sealed class JitCause(Dictionary<int, List<(double Start, double Stop)>> windowsByThread)
    : ThreadWindowsCause("JIT compilation", windowsByThread)
{
    public override CauseKind Kind => CauseKind.Jit;

    public static IEnumerable<ICause> From(CauseInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var windows = ByThread(inputs.Set.Jit.Windows);
        return windows.Count == 0 ? [] : [new JitCause(windows)];
    }
}
