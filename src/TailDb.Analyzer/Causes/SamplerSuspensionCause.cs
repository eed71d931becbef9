namespace TailDb.Analyzer.Causes;

/// <summary>
/// SuspendOther while the sample profiler ran: mostly its own ticks, the measurement's cost, kept
/// apart from the app's causes (less the ticks' unusual waits, <see cref="SafePointWaitCause"/>).
/// </summary>
internal sealed class SamplerSuspensionCause(List<(double Start, double Stop)> windows)
    : ProcessWindowsCause("sample profiler suspensions (SuspendOther while sampling: measurement overhead)", windows)
{
    public override CauseKind Kind => CauseKind.SamplerSuspension;

    public override bool IsMeasurement => true;
}
