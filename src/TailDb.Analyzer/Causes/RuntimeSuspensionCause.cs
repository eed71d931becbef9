namespace TailDb.Analyzer.Causes;

/// <summary>A runtime suspension for one reason other than a GC (or SuspendOther without samples): every thread stopped.</summary>
internal sealed class RuntimeSuspensionCause(string name, List<(double Start, double Stop)> windows) : ProcessWindowsCause(name, windows)
{
    public override CauseKind Kind => CauseKind.RuntimeSuspension;
}
